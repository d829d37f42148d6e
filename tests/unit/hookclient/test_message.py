"""Building the hook message: stamp, dedupe key, subject, repo and branch, redaction, fitting."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from codememory.hookclient.message import (
    MAX_MESSAGE_BYTES,
    HookMessage,
    build_message,
    dedupe_key,
    format_received_at,
    subject_token,
)
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def body(message: HookMessage) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(message.data)
    return decoded


def test_received_at_is_utc_with_microseconds() -> None:
    assert format_received_at(1795327200.123456) == "2026-11-22T06:00:00.123456Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", format_received_at(1.9999999))


def test_dedupe_key_is_32_random_hex_that_says_nothing_of_the_payload() -> None:
    raw = b'{"prompt": "my sister\'s birthday is on the 12th"}'
    keys = {build_message("claude", raw, tenant="t", max_field=16384, now=1.0).msg_id for _ in range(50)}
    assert len(keys) == 50 and all(re.fullmatch(r"[0-9a-f]{32}", k) for k in keys)
    assert re.fullmatch(r"[0-9a-f]{32}", dedupe_key())


def test_subject_tokens_are_sanitized() -> None:
    assert subject_token("PostToolUse") == "PostToolUse"
    assert subject_token("my agent.v2>*") == "my_agent_v2__"
    assert subject_token("") == "unknown"


def test_claude_sample(tmp_path: Path) -> None:
    raw = (HOOKS_DATA / "claude_PostToolUse_Edit.json").read_bytes()
    message = build_message("claude", raw, tenant="local", max_field=16384, now=1795327200.5)
    decoded = body(message)
    assert message.subject == "cm.hooks.local.claude.PostToolUse"
    assert list(decoded) == [
        "v", "agent", "event", "tenant", "received_at", "dedupe_key",
        "repo", "repo_root", "branch", "user", "trimmed", "payload",
    ]  # fmt: skip
    assert decoded["v"] == 1 and decoded["event"] == "PostToolUse"
    assert decoded["received_at"] == "2026-11-22T06:00:00.500000Z"
    assert decoded["dedupe_key"] == message.msg_id and re.fullmatch(r"[0-9a-f]{32}", message.msg_id)
    assert decoded["payload"] == json.loads(raw)  # nothing secret or long in this sample
    assert decoded["trimmed"] == []
    assert decoded["repo"] == "" and decoded["branch"] == ""  # its cwd does not exist here


def test_cursor_event_and_tenant_go_into_the_subject() -> None:
    raw = (HOOKS_DATA / "cursor_beforeSubmitPrompt.json").read_bytes()
    message = build_message("cursor", raw, tenant="team.a", max_field=16384)
    assert message.subject == "cm.hooks.team_a.cursor.beforeSubmitPrompt"
    assert body(message)["tenant"] == "team.a"


def test_secrets_are_redacted_before_anything_else() -> None:
    payload = {"hook_event_name": "PostToolUse", "tool_response": {"stdout": f"token={SECRET} done"}}
    message = build_message("claude", json.dumps(payload).encode(), tenant="local", max_field=16384)
    assert SECRET not in message.data.decode()
    assert SECRET not in json.dumps(message.to_record())
    assert "done" in body(message)["payload"]["tool_response"]["stdout"]


def test_non_json_stdin_is_kept_as_raw_text() -> None:
    message = build_message("gemini", b"not json at all " + SECRET.encode(), tenant="local", max_field=16384)
    decoded = body(message)
    assert decoded["event"] == "unknown"
    assert message.subject == "cm.hooks.local.gemini.unknown"
    assert decoded["payload"]["_raw"].startswith("not json at all ")
    assert SECRET not in decoded["payload"]["_raw"]


def test_a_json_array_is_not_an_object_so_it_is_raw() -> None:
    decoded = body(build_message("codex", b"[1, 2]", tenant="local", max_field=16384))
    assert decoded["payload"] == {"_raw": "[1, 2]"}


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    decoded = body(build_message("codex", b"\xff\xfe{", tenant="local", max_field=16384))
    assert decoded["payload"]["_raw"].endswith("{")


def test_three_megabyte_write_fits_and_records_paths() -> None:
    payload = json.loads((HOOKS_DATA / "claude_PostToolUse_Write.json").read_bytes())
    content = "".join(f"line {i}: some file content here\n" for i in range(100_000))
    assert len(content) > 3_000_000
    payload["tool_input"]["content"] = content
    payload["tool_response"] = {"type": "create", "filePath": "/x.py", "content": content}
    message = build_message("claude", json.dumps(payload).encode(), tenant="local", max_field=16384)
    decoded = body(message)
    assert len(message.data) < 64 * 1024
    assert decoded["trimmed"] == ["tool_input.content", "tool_response.content"]
    assert decoded["payload"]["tool_input"]["content"].startswith("line 0: ")
    assert "…[trimmed " in decoded["payload"]["tool_input"]["content"]


def test_many_medium_fields_trigger_harder_caps() -> None:
    payload = {"hook_event_name": "PostToolUse", "items": ["z" * 15_000 for _ in range(200)]}
    message = build_message("claude", json.dumps(payload).encode(), tenant="local", max_field=16384)
    assert len(message.data) <= MAX_MESSAGE_BYTES
    assert len(body(message)["payload"]["items"][0]) <= 2048 + 32


def test_pathological_payload_falls_back_to_top_level_scalars() -> None:
    payload = {"hook_event_name": "Stop", "session_id": "s1", "blob": [[1] * 100 for _ in range(5000)]}
    message = build_message("claude", json.dumps(payload).encode(), tenant="local", max_field=16384)
    decoded = body(message)
    assert len(message.data) <= MAX_MESSAGE_BYTES
    assert decoded["payload"] == {"_truncated": True, "hook_event_name": "Stop", "session_id": "s1"}
    assert decoded["trimmed"] == ["blob"]


def test_record_round_trip() -> None:
    message = build_message("claude", b'{"hook_event_name":"Stop"}', tenant="local", max_field=16384)
    again = HookMessage.from_record(json.loads(json.dumps(message.to_record())))
    assert (again.subject, again.msg_id, again.data) == (message.subject, message.msg_id, message.data)
    with pytest.raises(ValueError):
        HookMessage.from_record({"subject": 1, "msg_id": "x", "message": {}})


def test_message_uses_payload_cwd_then_workspace_roots(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "proj" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "proj" / ".git" / "config").write_text('[remote "origin"]\n\turl = git@host.org:a/proj.git\n')
    claude = {"hook_event_name": "Stop", "cwd": str(tmp_path / "proj")}
    decoded = body(build_message("claude", json.dumps(claude).encode(), tenant="local", max_field=16384))
    assert (decoded["repo"], decoded["repo_root"], decoded["branch"]) == (
        "host.org/a/proj",
        str(tmp_path / "proj"),
        "main",
    )
    cursor = {"hook_event_name": "stop", "cwd": "", "workspace_roots": [str(tmp_path / "proj")]}
    decoded = body(build_message("cursor", json.dumps(cursor).encode(), tenant="local", max_field=16384))
    assert decoded["repo"] == "host.org/a/proj"
    assert decoded["user"] == (os.environ.get("USER") or os.environ.get("LOGNAME") or decoded["user"])


def test_json_nested_thousands_deep_is_kept_as_raw_text_not_dropped() -> None:
    deep = b'{"hook_event_name": "PostToolUse", "tool_input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    message = build_message("claude", deep, tenant="local", max_field=4096)
    assert message.body["event"] == "unknown" and "_raw" in message.body["payload"]  # type: ignore[operator]
    assert len(message.data) < 200_000  # trimmed like any oversized field
