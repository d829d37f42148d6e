"""No secret reaches any file codememory writes: every byte under the home is searched for the corpus.

A stack of its own: secrets go through the hook process, some of them while NATS is down (so they are
spooled, then flushed by the stack's flusher or the next hook), the stack is stopped so every file is
complete, and then every file under the home (NATS's stream files, the spool, the logs, the gateway's
shards, the secrets directory itself) is read as bytes and searched for each secret. The model cache
is left out: it is downloaded, never written from user input.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest_paths import BIN  # type: ignore[import-not-found]
from test_secrets import _payloads  # type: ignore[import-not-found]

from codememory.redaction.testing import secret_corpus
from conftest import launch, shutdown  # type: ignore[import-not-found]


def test_no_secret_reaches_any_file_under_the_home(tmp_path: Path) -> None:
    samples = secret_corpus(160, seed=41)
    payloads = _payloads(samples)
    stack = launch(tmp_path)
    try:
        down = {**stack.env, "CODEMEMORY_NATS_URL": "nats://127.0.0.1:9"}
        for agent, payload in payloads[:40]:  # spooled: the server is "down" for these
            subprocess.run(
                [str(BIN / "codememory"), "hook", "--agent", agent],
                input=json.dumps(payload).encode(),
                env=down,
                check=True,
                timeout=60,
            )
        # spooled, each of them (the stack's flusher drains the spool every 2 s, so the file itself may
        # already be gone: the hook's log says what it did)
        spooled = (tmp_path / "logs" / "hook.log").read_text().count("; spooled ")
        assert spooled == 40, spooled
        live = [(agent, json.dumps(payload).encode()) for agent, payload in payloads[40:]]
        assert stack.hook(*live[0]).returncode == 0  # it sends the spool first, alone
        assert [r.returncode for r in stack.hooks(live[1:])] == [0] * (len(live) - 1)
        stack.wait_caught_up(timeout=180)
        log_text = stack.cli("log", "--json").stdout.decode()
        assert "[REDACTED:" in log_text and log_text.count("prompt.submitted") >= 40
    finally:
        shutdown(stack)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and "models" not in p.relative_to(tmp_path).parts]
    assert any("jetstream" in p.parts for p in files) and files
    needles = {s.secret.encode(): s.kind for s in samples if len(s.secret) >= 8}
    leaks: list[str] = []
    for path in files:
        data = path.read_bytes()
        leaks += [
            f"{kind} in {path.relative_to(tmp_path)}" for needle, kind in needles.items() if needle in data
        ]
    assert not leaks, f"{len(leaks)} secrets on disk, e.g. {leaks[:5]}"
