"""Secrets seeded into real hook payloads (shared/data/hooks) must not survive ``redact``.

Each of >= 200 generated secrets (>= 20 kinds) is placed into the fields that carry user content
in captured Claude Code, Cursor and Gemini payloads: shell commands and their output, prompts,
written and edited file contents. The whole payload is redacted, serialized as it would be for
the event log, and searched for the secret, raw and JSON-escaped.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from codememory.redaction import redact
from codememory.redaction.testing import SecretSample, secret_corpus
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

HOOKS = HOOKS_DATA

Payload = dict[str, Any]


def _bash(payload: Payload, text: str) -> None:
    payload["tool_input"]["command"] += f" && {text}"
    payload["tool_response"]["stdout"] = f"+ {text}\n{text}\nexit 0"


def _prompt(payload: Payload, text: str) -> None:
    payload["prompt"] += f"\nuse this config:\n{text}\n"


def _write(payload: Payload, text: str) -> None:
    payload["tool_input"]["content"] += f"{text}\n"
    payload["tool_response"]["content"] += f"{text}\n"


def _edit(payload: Payload, text: str) -> None:
    payload["tool_input"]["new_string"] += f"\n{text}"
    payload["tool_response"]["newString"] += f"\n{text}"
    payload["tool_response"]["originalFile"] += f"\n{text}\n"


def _read(payload: Payload, text: str) -> None:
    payload["tool_response"]["file"]["content"] += f"\n{text}\n"


def _cursor_shell(payload: Payload, text: str) -> None:
    payload["command"] = f"{text}; {payload['command']}"


def _cursor_edit(payload: Payload, text: str) -> None:
    payload["edits"].append({"old_string": "", "new_string": text})


def _gemini_shell(payload: Payload, text: str) -> None:
    payload["tool_input"]["command"] = text
    payload["tool_response"]["llmContent"] = f"Output: {text}\nProcess Group PGID: 77665"


PLACEMENTS: dict[str, Callable[[Payload, str], None]] = {
    "claude_PostToolUse_Bash.json": _bash,
    "claude_UserPromptSubmit.json": _prompt,
    "claude_PostToolUse_Write.json": _write,
    "claude_PostToolUse_Edit.json": _edit,
    "claude_PostToolUse_Read.json": _read,
    "cursor_beforeShellExecution.json": _cursor_shell,
    "cursor_afterFileEdit.json": _cursor_edit,
    "gemini_AfterTool_run_shell_command.json": _gemini_shell,
}
SAMPLES = secret_corpus(240, seed=7)


def _load(name: str) -> Payload:
    loaded: Payload = json.loads((HOOKS / name).read_text())
    return loaded


def _leaks(sample: SecretSample, serialized: str) -> bool:
    escaped = json.dumps(sample.secret)[1:-1]
    return sample.secret in serialized or escaped in serialized


def test_corpus_is_big_and_varied_enough() -> None:
    assert len(SAMPLES) >= 200
    assert len({sample.kind for sample in SAMPLES}) >= 20


@pytest.mark.parametrize("name", sorted(PLACEMENTS))
def test_no_seeded_secret_survives(name: str) -> None:
    original = _load(name)
    for sample in SAMPLES:
        payload = copy.deepcopy(original)
        PLACEMENTS[name](payload, sample.context)
        assert _leaks(sample, json.dumps(payload)), "the secret was not seeded"
        redacted = redact(payload)
        serialized = json.dumps(redacted)
        assert not _leaks(sample, serialized), (name, sample.kind, sample.context)
        assert "[REDACTED:" in serialized
        assert isinstance(redacted, dict)
        assert redacted.keys() == payload.keys()
        assert redacted.get("hook_event_name") == payload.get("hook_event_name")


@pytest.mark.parametrize("name", sorted(PLACEMENTS))
def test_all_secrets_at_once(name: str) -> None:
    payload = _load(name)
    PLACEMENTS[name](payload, "\n".join(sample.context for sample in SAMPLES))
    serialized = json.dumps(redact(payload))
    leaked = [sample for sample in SAMPLES if _leaks(sample, serialized)]
    assert not leaked


def _all_payloads() -> list[tuple[str, object]]:
    files = sorted(HOOKS.glob("*.json")) + sorted(HOOKS.glob("claude_docs/*.json"))
    payloads: list[tuple[str, object]] = [(path.name, json.loads(path.read_text())) for path in files]
    transcript = HOOKS / "claude_transcript_sample.jsonl"
    for number, line in enumerate(transcript.read_text().splitlines()):
        payloads.append((f"transcript:{number}", json.loads(line)))
    return payloads


def test_real_payloads_without_secrets_are_unchanged() -> None:
    payloads = _all_payloads()
    assert len(payloads) > 50
    for name, payload in payloads:
        assert redact(payload) == payload, name
