"""One line a human would want about a tool call, and the excerpt of what went into it.

A memory built from "Edited src/auth.py: replaced `foo` with `bar`" is useful when recalled; one built from
a raw JSON blob is not. Summaries are written per tool *kind*, so they read the same whichever agent made
the call. Everything returned here is already cleaned (redacted, private-free) and capped.
"""

from __future__ import annotations

from typing import Any

from codememory.events import ToolKind
from codememory.ingest.normalize.common import EXCERPT_CAP, clean, first_text, line, list_of, squash, text_of

__all__ = ["edit_pairs", "input_text", "summarize"]

_SNIPPET = 60
_PRE_VERBS: dict[ToolKind, str] = {
    "read": "Will read",
    "edit": "Will edit",
    "write": "Will write",
    "search": "Will search",
    "shell": "Will run",
    "web": "Will fetch",
    "task": "Will start",
    "other": "Will use",
}


def edit_pairs(tool_input: dict[str, Any]) -> list[tuple[str, str]]:
    """The (old, new) text pairs of an edit: one for Edit/replace, several for MultiEdit and Cursor edits."""
    if "old_string" in tool_input or "new_string" in tool_input:
        return [(text_of(tool_input, "old_string"), text_of(tool_input, "new_string"))]
    pairs = [
        (text_of(edit, "old_string"), text_of(edit, "new_string"))
        for edit in list_of(tool_input, "edits")
        if isinstance(edit, dict)
    ]
    if not pairs and (source := text_of(tool_input, "new_source")):
        pairs.append(("", source))
    return pairs


def input_text(kind: ToolKind, tool_input: dict[str, Any]) -> str:
    """The excerpt of a tool's input: old/new text for edits, content for writes, else its arguments."""
    if kind == "edit":
        pairs = edit_pairs(tool_input)
        if pairs:
            half = EXCERPT_CAP // (2 * min(len(pairs), 4)) - 10
            parts = [f"--- old\n{clean(old, half)}\n+++ new\n{clean(new, half)}" for old, new in pairs[:4]]
            return clean("\n".join(parts))
        if patch := first_text(tool_input, "patch", "input", "diff", "command"):
            return clean(patch)
    if kind == "write" and (content := first_text(tool_input, "content", "file_text", "contents")):
        return clean(content)
    return clean(tool_input) if tool_input else ""


def summarize(
    tool: str,
    kind: ToolKind,
    tool_input: dict[str, Any],
    response: object,
    paths: tuple[str, ...],
    command: str,
    phase: str,
    exit_code: int | None,
    succeeded: bool,
) -> str:
    """One line for a tool call, e.g. "Ran `pytest -q` → exit 0" or "Read src/x.py"."""
    tool = line(tool, 100)
    target = _target(tool, kind, tool_input, paths, command)
    if phase == "pre":
        return squash(f"{_PRE_VERBS[kind]} {target}".strip())
    if kind == "shell":
        return squash(f"Ran {target} → {_outcome(exit_code, succeeded, response)}")
    if kind == "edit":
        return squash(f"Edited {target}{_edit_detail(tool_input)}")
    if kind == "write":
        created = isinstance(response, dict) and response.get("type") == "create"
        return squash(f"{'Created' if created else 'Wrote'} {target}{_line_count(tool_input)}")
    if kind == "read":
        return squash(f"Read {target}")
    if kind == "search":
        return squash(f"Searched {target}{_match_count(response)}")
    if kind == "web":
        return squash(
            f"Fetched {target}" if first_text(tool_input, "url") else f"Searched the web for {target}"
        )
    if kind == "task":
        return squash(f"{_task_verb(tool)} {target}")
    suffix = "" if succeeded else " (failed)"
    return squash(f"Used {tool}{': ' + target if target != tool else ''}{suffix}")


def _target(
    tool: str, kind: ToolKind, tool_input: dict[str, Any], paths: tuple[str, ...], command: str
) -> str:
    if kind == "shell":
        return f"`{_snippet(command, 120)}`" if command else tool
    if kind == "search":
        pattern = first_text(tool_input, "pattern", "query", "regex", "glob")
        where = f" in {_paths(paths)}" if paths else ""
        return f"`{_snippet(pattern, 80)}`{where}" if pattern else _paths(paths) or tool
    if kind == "web":
        return line(first_text(tool_input, "url", "query", "prompt"), 120) or tool
    if kind == "task":
        if "todos" in tool_input:
            return _todo_counts(list_of(tool_input, "todos"))
        who = first_text(tool_input, "subagent_type", "agent_type")
        what = first_text(tool_input, "description", "explanation", "prompt")
        who, what = line(who, 60), line(what, 160)
        return squash(f"{who}: {what}" if who and what else who or what or tool, 200)
    if paths:
        return _paths(paths)
    if kind == "other":
        scalar = next((v for v in tool_input.values() if isinstance(v, str | int | float) and str(v)), "")
        return line(scalar, 120) if scalar != "" else tool
    return tool


def _paths(paths: tuple[str, ...]) -> str:
    if not paths:
        return ""
    return paths[0] if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} more)"


def _edit_detail(tool_input: dict[str, Any]) -> str:
    pairs = edit_pairs(tool_input)
    if len(pairs) > 1:
        return f": {len(pairs)} changes"
    if not pairs:
        return ""
    old, new = (_snippet(text, _SNIPPET) for text in _changed_lines(*pairs[0]))
    if old and new:
        return f": replaced `{old}` with `{new}`"
    if new:
        return f": inserted `{new}`"
    return f": removed `{old}`" if old else ""


def _changed_lines(old: str, new: str) -> tuple[str, str]:
    """The old and new text with the lines both share at the start and end removed."""
    old_lines, new_lines = old[:20_000].splitlines(), new[:20_000].splitlines()
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    return (
        "\n".join(old_lines[head : len(old_lines) - tail]),
        "\n".join(new_lines[head : len(new_lines) - tail]),
    )


def _line_count(tool_input: dict[str, Any]) -> str:
    content = first_text(tool_input, "content", "file_text", "contents")
    if not content:
        return ""
    count = content.count("\n") + (0 if content.endswith("\n") else 1)
    return f" ({count} line{'' if count == 1 else 's'})"


def _match_count(response: object) -> str:
    if not isinstance(response, dict):
        return ""
    for key, noun in (("numFiles", "files"), ("numMatches", "matches"), ("numLines", "lines")):
        value = response.get(key)
        if type(value) is int:
            return f" → {value} {noun}"
    return ""


def _outcome(exit_code: int | None, succeeded: bool, response: object) -> str:
    if exit_code is not None:
        return f"exit {exit_code}"
    if isinstance(response, dict) and response.get("interrupted") is True:
        return "interrupted"
    return "ok" if succeeded else "failed"


def _task_verb(tool: str) -> str:
    lowered = tool.lower()
    return "Updated" if "todo" in lowered or "plan" in lowered else "Ran subagent"


def _todo_counts(todos: list[Any]) -> str:
    counts: dict[str, int] = {}
    for todo in todos:
        status = line(text_of(todo, "status"), 30) or "pending"
        counts[status] = counts.get(status, 0) + 1
    detail = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in counts.items())
    return f"todos: {detail}" if detail else "todos"


def _snippet(text: str, limit: int) -> str:
    """The first non-blank line of ``text``, cleaned, capped, with backticks softened."""
    first = next((row for row in clean(text, limit * 4).splitlines() if row.strip()), "")
    return line(first, limit).replace("`", "'")
