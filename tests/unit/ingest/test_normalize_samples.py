"""Every real and documented hook payload we have is ingested, and the important ones map as intended.

The samples live in ``shared/data/hooks`` beside the repository (see its README for provenance); the
agent is the file name's prefix, ``claude_docs/`` being Claude Code's documentation examples.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codememory.events import (
    CompactionCheckpointed,
    ObservationRecorded,
    PromptSubmitted,
    SessionEnded,
    SessionStarted,
    SubagentCompleted,
    ToolFailed,
    ToolObserved,
    decode_envelope,
    encode_envelope,
)
from codememory.ingest.message import to_envelopes
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

SAMPLES = HOOKS_DATA
SAMPLE_FILES = sorted(SAMPLES.glob("*.json")) + sorted((SAMPLES / "claude_docs").glob("*.json"))


def _agent(path: Path) -> str:
    return "claude" if path.parent.name == "claude_docs" else path.name.split("_", 1)[0]


def _events(message, sample, name: str) -> list:
    agent = "claude" if name.startswith("claude_docs/") else name.split("_", 1)[0]
    return [envelope.payload for envelope in to_envelopes(message(agent, sample(name)))]


def test_the_samples_are_there():
    assert len(SAMPLE_FILES) >= 70, f"hook samples missing under {SAMPLES}"


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_is_ingested_and_round_trips(message, path):
    payload = json.loads(path.read_text())
    envelopes = to_envelopes(message(_agent(path), payload))
    assert envelopes
    for envelope in envelopes:
        assert decode_envelope(encode_envelope(envelope)) == envelope
        event = envelope.payload
        assert event.agent == _agent(path)
        assert event.session_id
        assert envelope.correlation_id == event.session_id


def test_claude_edit(message, sample):
    [event] = _events(message, sample, "claude_PostToolUse_Edit.json")
    assert isinstance(event, ToolObserved)
    assert (event.tool, event.kind, event.phase) == ("Edit", "edit", "post")
    assert event.paths == ("CLAUDE.md",)
    assert event.summary.startswith("Edited CLAUDE.md: inserted `- Never delete hook files")
    assert "--- old" in event.input_excerpt and "+++ new" in event.input_excerpt
    assert event.output_excerpt == ""  # the response's originalFile is bulk, not signal
    assert event.tool_use_id == "toolu_01Mf5MkB2jBbtSFJ2xw2NFm5"


def test_claude_bash(message, sample):
    [event] = _events(message, sample, "claude_PostToolUse_Bash.json")
    assert isinstance(event, ToolObserved)
    assert (event.kind, event.command, event.succeeded) == ("shell", "chmod +x install.sh", True)
    assert event.summary == "Ran `chmod +x install.sh` → ok"


@pytest.mark.parametrize(
    ("name", "kind", "paths", "summary"),
    [
        (
            "claude_PostToolUse_Read.json",
            "read",
            ("global-commands/start.md",),
            "Read global-commands/start.md",
        ),
        (
            "claude_PostToolUse_Write.json",
            "write",
            ("global-hooks/framework/validators/run_tests.py",),
            "Created global-hooks/framework/validators/run_tests.py (4 lines)",
        ),
        (
            "claude_PostToolUse_Grep.json",
            "search",
            ("global-agents",),
            "Searched `^name: caddy$` in global-agents → 0 files",
        ),
        ("claude_PostToolUse_Glob.json", "search", (), "Searched `global-agents/agbot/*.md` → 0 files"),
        ("claude_PostToolUse_TodoWrite.json", "task", (), "Updated todos: 1 in progress, 1 pending"),
        ("claude_PreToolUse_Read.json", "read", ("CLAUDE.md",), "Will read CLAUDE.md"),
    ],
)
def test_claude_tools(message, sample, name, kind, paths, summary):
    [event] = _events(message, sample, name)
    assert isinstance(event, ToolObserved)
    assert (event.kind, event.paths, event.summary) == (kind, paths, summary)


def test_claude_read_keeps_the_file_content_as_output(message, sample):
    [event] = _events(message, sample, "claude_PostToolUse_Read.json")
    assert "sh scripts/start-system.sh" in event.output_excerpt


def test_claude_pre_tool_use_is_phase_pre(message, sample):
    [event] = _events(message, sample, "claude_PreToolUse_Bash.json")
    assert isinstance(event, ToolObserved)
    assert (event.phase, event.command) == ("pre", "chmod +x install.sh")


def test_claude_tool_failure(message, sample):
    [event] = _events(message, sample, "claude_PostToolUseFailure_Bash.json")
    assert isinstance(event, ToolFailed)
    assert (event.tool, event.kind) == ("Bash", "shell")
    assert event.command.startswith("ls -laO ")
    assert event.error.startswith("Exit code 1\n")


def test_claude_prompt(message, sample):
    [event] = _events(message, sample, "claude_UserPromptSubmit.json")
    assert isinstance(event, PromptSubmitted)
    assert "2. lets do that" in event.prompt


def test_claude_session_start_and_end(message, sample):
    [started] = _events(message, sample, "claude_SessionStart_compact.json")
    assert isinstance(started, SessionStarted)
    assert (started.source, started.model) == ("compact", "claude-sonnet-4-5-20250929")
    [startup] = _events(message, sample, "claude_SessionStart_startup.json")
    assert (startup.source, startup.model) == ("startup", "")
    [ended] = _events(message, sample, "claude_SessionEnd_prompt_input_exit.json")
    assert isinstance(ended, SessionEnded)
    assert ended.reason == "prompt_input_exit"


def test_claude_task_tool_is_a_completed_subagent(message, sample):
    [event] = _events(message, sample, "claude_PostToolUse_Task.json")
    assert isinstance(event, SubagentCompleted)
    assert event.subagent_type == "researcher"
    assert event.result.startswith("Now let me compile the audit report.")
    assert len(event.result) <= 2000


def test_claude_subagent_stop(message, sample):
    [event] = _events(message, sample, "claude_docs/SubagentStop.json")
    assert isinstance(event, SubagentCompleted)
    assert (event.subagent_type, event.result) == (
        "Explore",
        "Analysis complete. Found 3 potential issues...",
    )


def test_claude_compaction(message, sample):
    [pre] = _events(message, sample, "claude_PreCompact_auto.json")
    assert isinstance(pre, CompactionCheckpointed)
    assert (pre.trigger, pre.summary) == ("auto", "")
    [post] = _events(message, sample, "claude_docs/PostCompact.json")
    assert (post.trigger, post.summary) == ("manual", "Summary of the compacted conversation...")


def test_claude_stop_summarizes_the_last_message_when_there_is_one(message, sample):
    [documented] = _events(message, sample, "claude_docs/Stop.json")
    assert isinstance(documented, ObservationRecorded)
    assert documented.summary == "I've completed the refactoring. Here's a summary..."
    [real] = _events(message, sample, "claude_Stop.json")
    assert real.summary == "Agent finished its turn"


def test_claude_notification_and_permission_are_observations(message, sample):
    [note] = _events(message, sample, "claude_Notification_idle_prompt.json")
    assert isinstance(note, ObservationRecorded)
    assert note.summary == "Notification: Claude is waiting for your input"
    [permission] = _events(message, sample, "claude_PermissionRequest_Bash.json")
    assert permission.summary == "Permission requested for Bash `just skills-lock`"
    assert permission.fields["permission_suggestions"][0]["behavior"] == "allow"
    assert "session_id" not in permission.fields and "hook_event_name" not in permission.fields


def test_cursor_after_file_edit(message, sample):
    payload = sample("cursor_afterFileEdit.json")
    data = message("cursor", payload, repo_root="/Users/mars/Documents/GitHub/grafanaDemoPersonal")
    [envelope] = to_envelopes(data)
    event = envelope.payload
    assert isinstance(event, ToolObserved)
    assert (event.kind, event.phase) == ("edit", "post")
    assert event.paths == ("public/app/plugins/panel/welcome/Welcome.tsx",)
    assert event.summary == (
        "Edited public/app/plugins/panel/welcome/Welcome.tsx: inserted `color: theme.colors.success.text,`"
    )
    assert event.session_id == "edc0c8f7-87cc-46cf-8ddf-b16685e7d598"
    assert event.cwd == "/Users/mars/Documents/GitHub/grafanaDemoPersonal"


def test_cursor_shell_hooks(message, sample):
    [before] = _events(message, sample, "cursor_beforeShellExecution.json")
    assert isinstance(before, ToolObserved)
    assert (before.kind, before.phase) == ("shell", "pre")
    assert before.command == "curl -sI http://localhost:3000/ | head -5"
    [failure] = _events(message, sample, "cursor_postToolUseFailure_Shell_cli.json")
    assert isinstance(failure, ToolFailed)
    assert failure.error == "cat: /nonexistent-file-xyz-123: No such file or directory"
    assert failure.command == "cat /nonexistent-file-xyz-123"
    [post] = _events(message, sample, "cursor_postToolUse_Shell_cli.json")
    assert isinstance(post, ToolObserved)
    assert (post.kind, post.output_excerpt) == ("shell", "<OUTPUT>")


def test_cursor_prompt_and_session(message, sample):
    [prompt] = _events(message, sample, "cursor_beforeSubmitPrompt.json")
    assert isinstance(prompt, PromptSubmitted)
    assert prompt.prompt == "run the grafana app"
    [ended] = _events(message, sample, "cursor_sessionEnd_ide.json")
    assert isinstance(ended, SessionEnded)
    assert ended.reason == "user_close"


def test_gemini_shell_tool(message, sample):
    [event] = _events(message, sample, "gemini_AfterTool_run_shell_command.json")
    assert isinstance(event, ToolObserved)
    assert (event.tool, event.kind, event.command) == ("run_shell_command", "shell", "echo hello-from-tma")
    assert event.output_excerpt.startswith("Output: hello-from-tma")
    assert event.succeeded


def test_gemini_prompt_and_response(message, sample):
    [prompt] = _events(message, sample, "gemini_BeforeAgent.json")
    assert isinstance(prompt, PromptSubmitted)
    assert prompt.prompt == "Run the shell command: echo hello-from-tma"
    [after] = _events(message, sample, "gemini_AfterAgent.json")
    assert isinstance(after, ObservationRecorded)
    assert after.summary == "hello-from-tma"


def test_codex_prompt_and_stop(message, sample):
    [prompt] = _events(message, sample, "codex_UserPromptSubmit.json")
    assert isinstance(prompt, PromptSubmitted)
    assert prompt.prompt == "run the command: echo probe"
    [stop] = _events(message, sample, "codex_Stop.json")
    assert isinstance(stop, ObservationRecorded)
    assert stop.summary == "ONE"
