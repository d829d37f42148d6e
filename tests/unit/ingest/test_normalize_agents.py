"""Agent-specific mappings beyond the captured samples: shapes documented but not captured verbatim."""

from __future__ import annotations

from codememory.events import (
    CompactionCheckpointed,
    ObservationRecorded,
    SessionStarted,
    SubagentCompleted,
    ToolFailed,
    ToolObserved,
)
from codememory.ingest.message import to_envelopes

ROOT = "/Users/tomkwon/Documents/claude-agentic-framework"
SESSION = {"session_id": "s-1", "cwd": ROOT}


def _one(message, agent: str, payload: dict):
    [envelope] = to_envelopes(message(agent, payload))
    return envelope.payload


def _tool(event: str, tool: str, tool_input: dict, response: object = None) -> dict:
    payload = {**SESSION, "hook_event_name": event, "tool_name": tool, "tool_input": tool_input}
    if response is not None:
        payload["tool_response"] = response
    return payload


def test_claude_multi_edit_counts_changes(message):
    edits = [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]
    event = _one(
        message, "claude", _tool("PostToolUse", "MultiEdit", {"file_path": f"{ROOT}/x.py", "edits": edits})
    )
    assert isinstance(event, ToolObserved)
    assert (event.kind, event.paths, event.summary) == ("edit", ("x.py",), "Edited x.py: 2 changes")


def test_claude_edit_summary_shows_the_replacement(message):
    tool_input = {"file_path": f"{ROOT}/src/auth.py", "old_string": "foo()", "new_string": "bar()"}
    event = _one(message, "claude", _tool("PostToolUse", "Edit", tool_input, {"filePath": "x"}))
    assert event.summary == "Edited src/auth.py: replaced `foo()` with `bar()`"
    assert event.input_excerpt == "--- old\nfoo()\n+++ new\nbar()"


def test_claude_web_and_mcp_tools(message):
    fetch = _one(
        message, "claude", _tool("PostToolUse", "WebFetch", {"url": "https://docs.x.dev", "prompt": "p"})
    )
    assert (fetch.kind, fetch.summary) == ("web", "Fetched https://docs.x.dev")
    mcp = _one(message, "claude", _tool("PostToolUse", "mcp__github__get_issue", {"number": 7}, {"ok": True}))
    assert (mcp.kind, mcp.summary) == ("other", "Used mcp__github__get_issue: 7")


def test_claude_interrupted_bash_did_not_succeed(message):
    response = {"stdout": "", "stderr": "", "interrupted": True}
    event = _one(message, "claude", _tool("PostToolUse", "Bash", {"command": "sleep 99"}, response))
    assert isinstance(event, ToolObserved)
    assert not event.succeeded
    assert event.summary == "Ran `sleep 99` → interrupted"


def test_codex_shell_with_exit_code(message):
    event = _one(
        message,
        "codex",
        _tool("PostToolUse", "Bash", {"command": "pytest -q"}, {"exit_code": 1, "output": "1 failed"}),
    )
    assert isinstance(event, ToolObserved)
    assert (event.kind, event.command, event.succeeded) == ("shell", "pytest -q", False)
    assert event.summary == "Ran `pytest -q` → exit 1"
    assert event.output_excerpt == "1 failed"


def test_codex_apply_patch_paths(message):
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-old\n+new\n"
        "*** Add File: tests/test_app.py\n+def test(): pass\n*** End Patch\n"
    )
    event = _one(message, "codex", _tool("PostToolUse", "apply_patch", {"command": patch}, "Success."))
    assert isinstance(event, ToolObserved)
    assert event.kind == "edit"
    assert event.paths == ("src/app.py", "tests/test_app.py")
    assert event.summary == "Edited src/app.py (+1 more)"
    assert event.command == ""


def test_codex_compaction(message):
    event = _one(message, "codex", {**SESSION, "hook_event_name": "PreCompact", "trigger": "auto"})
    assert isinstance(event, CompactionCheckpointed)
    assert event.trigger == "auto"


def test_gemini_tool_error_is_a_failure(message):
    response = {
        "llmContent": "",
        "returnDisplay": "",
        "error": {"message": "File not found: a.py", "type": "x"},
    }
    event = _one(message, "gemini", _tool("AfterTool", "read_file", {"file_path": "a.py"}, response))
    assert isinstance(event, ToolFailed)
    assert (event.kind, event.paths, event.error) == ("read", ("a.py",), "File not found: a.py")


def test_gemini_shell_exit_code_is_read_from_the_output(message):
    response = {"llmContent": "Command: false\nOutput: (empty)\nExit Code: 1\n", "returnDisplay": ""}
    event = _one(message, "gemini", _tool("AfterTool", "run_shell_command", {"command": "false"}, response))
    assert isinstance(event, ToolObserved)
    assert (event.succeeded, event.summary) == (False, "Ran `false` → exit 1")


def test_gemini_replace_and_read_many_files(message):
    replace = {"file_path": f"{ROOT}/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    event = _one(message, "gemini", _tool("AfterTool", "replace", replace, {"llmContent": "ok"}))
    assert (event.kind, event.paths, event.summary) == (
        "edit",
        ("a.py",),
        "Edited a.py: replaced `x = 1` with `x = 2`",
    )
    many = _one(
        message, "gemini", _tool("AfterTool", "read_many_files", {"paths": ["a.py", "docs/b.md"]}, {})
    )
    assert (many.kind, many.paths) == ("read", ("a.py", "docs/b.md"))


def test_gemini_pre_compress(message):
    event = _one(message, "gemini", {**SESSION, "hook_event_name": "PreCompress", "trigger": "manual"})
    assert isinstance(event, CompactionCheckpointed)
    assert event.trigger == "manual"


def test_cursor_after_shell_execution(message):
    payload = {
        "conversation_id": "c-1",
        "hook_event_name": "afterShellExecution",
        "command": "npm test",
        "output": "2 passing",
        "exit_code": 0,
        "workspace_roots": [ROOT],
        "cwd": "",
    }
    event = _one(message, "cursor", payload)
    assert isinstance(event, ToolObserved)
    assert (event.session_id, event.cwd, event.kind) == ("c-1", ROOT, "shell")
    assert (event.summary, event.output_excerpt) == ("Ran `npm test` → exit 0", "2 passing")


def test_cursor_post_tool_use_read_and_subagent(message):
    read = _one(
        message,
        "cursor",
        {
            "conversation_id": "c-1",
            "hook_event_name": "postToolUse",
            "tool_name": "Read",
            "tool_input": {"path": f"{ROOT}/README.md"},
            "tool_output": "# hi",
        },
    )
    assert (read.kind, read.paths, read.output_excerpt) == ("read", ("README.md",), "# hi")
    done = _one(
        message,
        "cursor",
        {
            "conversation_id": "c-1",
            "hook_event_name": "subagentStop",
            "subagent_type": "explore",
            "result": "found it",
        },
    )
    assert isinstance(done, SubagentCompleted)
    assert (done.subagent_type, done.result) == ("explore", "found it")


def test_cursor_agent_response_and_background_session(message):
    said = _one(
        message,
        "cursor",
        {"conversation_id": "c-1", "hook_event_name": "afterAgentResponse", "text": "Done."},
    )
    assert isinstance(said, ObservationRecorded)
    assert said.summary == "Done."
    started = _one(
        message,
        "cursor",
        {
            "session_id": "c-1",
            "hook_event_name": "sessionStart",
            "is_background_agent": True,
            "model": "composer-2",
        },
    )
    assert isinstance(started, SessionStarted)
    assert (started.source, started.model) == ("background", "composer-2")
