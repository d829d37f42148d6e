"""Hundreds of secrets of many kinds, in real payload shapes, never reach LOG or Qdrant.

Both paths are covered: through the hook process (redacted there and again in ingest), and published
raw onto HOOKS, bypassing the hook client (ingest alone must catch them).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime

import nats
from conftest_paths import HOOKS_DATA  # type: ignore[import-not-found]

from codememory.redaction.testing import secret_corpus


def _payloads(samples) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def,type-arg]
    bash = json.loads((HOOKS_DATA / "claude_PostToolUse_Bash.json").read_text())
    prompt = json.loads((HOOKS_DATA / "claude_UserPromptSubmit.json").read_text())
    write = json.loads((HOOKS_DATA / "claude_PostToolUse_Write.json").read_text())
    cursor = json.loads((HOOKS_DATA / "cursor_beforeSubmitPrompt.json").read_text())
    out = []
    for i, sample in enumerate(samples):
        match i % 4:
            case 0:
                p = dict(bash, tool_input=dict(bash["tool_input"], command=sample.context))
                p["tool_response"] = dict(bash["tool_response"], stdout=f"ok\n{sample.context}\n")
                out.append(("claude", p))
            case 1:
                out.append(("claude", dict(prompt, prompt=f"please use this: {sample.context}")))
            case 2:
                p = dict(write, tool_input=dict(write["tool_input"], content=f"# config\n{sample.context}\n"))
                out.append(("claude", p))
            case _:
                out.append(("cursor", dict(cursor, prompt=f"set it up with {sample.context}")))
    return out


def _assert_clean(stack, samples, start_seq: int) -> None:  # type: ignore[no-untyped-def]
    log_text = stack.cli("log", "--json", "--from", str(start_seq)).stdout.decode()
    exported = stack.cli("export").stdout.decode()
    shard_bytes = b"".join(p.read_bytes() for p in (stack.home / "gateway").rglob("*") if p.is_file())
    leaked = [
        s for s in samples if s.secret in log_text or s.secret in exported or s.secret.encode() in shard_bytes
    ]
    assert not leaked, f"{len(leaked)} secrets leaked, e.g. {leaked[0].kind}"
    assert "[REDACTED:" in log_text


def test_secrets_through_the_hook_process(stack) -> None:  # type: ignore[no-untyped-def]
    samples = secret_corpus(240, seed=11)
    assert len(samples) >= 200 and len({s.kind for s in samples}) >= 20
    start = stack.wait_caught_up().log_last_seq + 1
    ran = stack.hooks([(agent, json.dumps(payload).encode()) for agent, payload in _payloads(samples)])
    assert [r.returncode for r in ran] == [0] * len(samples)
    stack.wait_caught_up(timeout=120)
    _assert_clean(stack, samples, start)


def test_secrets_published_raw_are_caught_by_ingest(stack) -> None:  # type: ignore[no-untyped-def]
    samples = secret_corpus(220, seed=23)
    start = stack.wait_caught_up().log_last_seq + 1

    async def publish() -> None:
        nc = await nats.connect(stack.nats_url)
        js = nc.jetstream()
        for i, (agent, payload) in enumerate(_payloads(samples)):
            key = hashlib.sha256(f"raw-{i}-{payload}".encode()).hexdigest()[:32]
            message = {
                "v": 1,
                "agent": agent,
                "event": payload.get("hook_event_name", ""),
                "tenant": "local",
                "received_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                "dedupe_key": key,
                "repo": "",
                "repo_root": "",
                "branch": "",
                "user": "tester",
                "trimmed": [],
                "payload": payload,
            }
            await js.publish(
                f"cm.hooks.local.{agent}.raw", json.dumps(message).encode(), headers={"Nats-Msg-Id": key}
            )
        await nc.close()

    asyncio.run(publish())
    stack.wait_caught_up(timeout=120)
    _assert_clean(stack, samples, start)
