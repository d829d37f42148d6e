"""The hook's forgetting question: asked after edits only, answered in each agent's own format."""

from __future__ import annotations

import json

from codememory.hookclient.forgetting import forgetting_request, format_forgetting
from codememory.hookclient.message import build_message
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

HOOKS = HOOKS_DATA


def _body(agent: str, payload: dict[str, object]) -> dict[str, object]:
    return build_message(agent, json.dumps(payload).encode(), tenant="t", max_field=16384).body


def test_a_real_claude_edit_asks_with_its_session_file_and_strings() -> None:
    payload = json.loads((HOOKS / "claude_PostToolUse_Edit.json").read_text())
    request = forgetting_request("claude", _body("claude", payload))
    assert request is not None
    assert request["session_id"] == payload["session_id"]
    assert request["path"] == payload["tool_input"]["file_path"]
    asked = request["tool_input"]
    assert isinstance(asked, dict) and set(asked) == {"old_string", "new_string"}


def test_reads_shells_and_other_events_do_not_ask() -> None:
    read = json.loads((HOOKS / "claude_PostToolUse_Read.json").read_text())
    assert forgetting_request("claude", _body("claude", read)) is None
    shell = json.loads((HOOKS / "claude_PostToolUse_Bash.json").read_text())
    assert forgetting_request("claude", _body("claude", shell)) is None
    cursor_edit = json.loads((HOOKS / "cursor_afterFileEdit.json").read_text())  # its output is not read
    assert forgetting_request("cursor", _body("cursor", cursor_edit)) is None
    gemini = {
        "hook_event_name": "AfterTool",
        "session_id": "g",
        "tool_name": "replace",
        "tool_input": {"file_path": "/r/a.py", "old_string": "a", "new_string": "b"},
    }
    assert forgetting_request("gemini", _body("gemini", gemini)) is not None


def test_each_agent_reads_the_answer_where_its_hooks_take_context() -> None:
    claude = json.loads(format_forgetting("claude", "PostToolUse", "undone") or "")
    assert claude == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "undone"}}
    gemini = json.loads(format_forgetting("gemini", "AfterTool", "undone") or "")
    assert gemini["hookSpecificOutput"]["additionalContext"] == "undone"
    assert json.loads(format_forgetting("cursor", "postToolUse", "undone") or "") == {
        "additional_context": "undone"
    }
    assert format_forgetting("claude", "PostToolUse", "  ") is None
    assert format_forgetting("claude", "Stop", "undone") is None
