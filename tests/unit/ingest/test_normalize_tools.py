"""Tool vocabulary shared by every agent: kinds, paths, and the one-line summaries."""

from __future__ import annotations

import pytest

from codememory.ingest.normalize.common import Context
from codememory.ingest.normalize.summaries import edit_pairs, input_text, summarize
from codememory.ingest.normalize.tools import ToolCall, display_path, patch_paths, tool_kind, tool_observed

CTX = Context(hook_event="PostToolUse", session_id="s", agent="claude", cwd="/repo/src", repo_root="/repo")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Read", "read"),
        ("read_file", "read"),
        ("read_many_files", "read"),
        ("Edit", "edit"),
        ("MultiEdit", "edit"),
        ("NotebookEdit", "edit"),
        ("replace", "edit"),
        ("apply_patch", "edit"),
        ("Write", "write"),
        ("write_file", "write"),
        ("Grep", "search"),
        ("Glob", "search"),
        ("search_file_content", "search"),
        ("list_directory", "search"),
        ("Bash", "shell"),
        ("Shell", "shell"),
        ("run_shell_command", "shell"),
        ("exec_command", "shell"),
        ("WebFetch", "web"),
        ("WebSearch", "web"),
        ("google_web_search", "web"),
        ("web_fetch", "web"),
        ("Task", "task"),
        ("Agent", "task"),
        ("TodoWrite", "task"),
        ("write_todos", "task"),
        ("mcp__github__create_issue", "other"),
        ("MCP:linear", "other"),
        ("Skill", "other"),
        ("", "other"),
    ],
)
def test_tool_kinds(name, kind):
    assert tool_kind(name) == kind


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("/repo/src/a.py", "src/a.py"),
        ("b.py", "src/b.py"),
        ("../docs/c.md", "docs/c.md"),
        ("/elsewhere/d.py", "/elsewhere/d.py"),
        ("/repository/e.py", "/repository/e.py"),
        ("  ", ""),
    ],
)
def test_display_paths_are_repo_relative_inside_the_repo(raw, shown):
    assert display_path(raw, CTX) == shown


def test_patch_paths_from_apply_patch_and_unified_diff():
    envelope = (
        "*** Begin Patch\n*** Delete File: old.py\n*** Update File: a.py\n*** Move to: b.py\n*** End Patch"
    )
    assert patch_paths(envelope) == ["old.py", "a.py", "b.py"]
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- a/gone.py\n+++ /dev/null\n"
    assert patch_paths(diff) == ["x.py"]
    assert patch_paths("ls -la") == []


def test_paths_are_gathered_from_every_known_key_once():
    call = ToolCall(
        tool="Edit", tool_input={"file_path": "/repo/a.py", "path": "a.py", "paths": ["/repo/src/a.py"]}
    )
    assert tool_observed(CTX, call, "post").paths == ("a.py", "src/a.py")


def test_edit_pairs_and_excerpt():
    assert edit_pairs({"old_string": "a", "new_string": "b"}) == [("a", "b")]
    assert edit_pairs({"edits": [{"old_string": "", "new_string": "x"}, "junk"]}) == [("", "x")]
    assert edit_pairs({"new_source": "cell"}) == [("", "cell")]
    excerpt = input_text("edit", {"old_string": "o" * 5000, "new_string": "n" * 5000})
    assert len(excerpt) <= 2000 and "+++ new" in excerpt


def test_shell_command_lists_are_joined():
    call = ToolCall(tool="shell", tool_input={"command": ["bash", "-lc", "echo hi there"]})
    assert tool_observed(CTX, call, "post").command == "bash -lc 'echo hi there'"


@pytest.mark.parametrize(
    ("kind", "tool_input", "expected"),
    [
        (
            "edit",
            {"old_string": "a = 1\nb = 2\n", "new_string": "a = 1\nb = 3\n"},
            "Edited x.py: replaced `b = 2` with `b = 3`",
        ),
        ("edit", {"old_string": "gone()", "new_string": ""}, "Edited x.py: removed `gone()`"),
        (
            "edit",
            {"old_string": "uses `tick`", "new_string": "uses `tock`"},
            "Edited x.py: replaced `uses 'tick'` with `uses 'tock'`",
        ),
        ("web", {"query": "msgspec tagged unions"}, "Searched the web for msgspec tagged unions"),
        ("task", {"subagent_type": "Explore", "description": "find auth"}, "Ran subagent Explore: find auth"),
    ],
)
def test_post_summaries(kind, tool_input, expected):
    assert summarize("T", kind, tool_input, None, ("x.py",), "", "post", None, True) == expected


def test_pre_summaries():
    assert summarize("Bash", "shell", {}, None, (), "npm test", "pre", None, True) == "Will run `npm test`"
    assert (
        summarize("Skill", "other", {"skill": "fix-pr"}, None, (), "", "pre", None, True) == "Will use fix-pr"
    )
