"""Edits as the detector wants them (path, old text, new text), from LOG or from a hook's request.

In LOG an edit is a ``ToolObserved`` of kind ``edit`` whose ``input_excerpt`` ingest wrote as
``--- old\\n<old>\\n+++ new\\n<new>`` per replaced fragment (up to four, capped), or a patch (Codex's
``apply_patch``, a unified diff). The hook sends the agent's own ``tool_input``: ``old_string`` and
``new_string`` (Claude Code's Edit, Gemini's replace), ``edits`` (MultiEdit, Cursor), or a patch.
Both become the same ``Edit`` values. Writes (a whole file's content with no old text) are not edits
here: without the text they replaced there is nothing to compare.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from codememory.reviews.forgetting import Edit

__all__ = ["edits_from_excerpt", "edits_from_input", "edits_from_patch"]

_PAIR = re.compile(r"(?:^|\n)--- old\n(.*?)\n\+\+\+ new\n(.*?)(?=\n--- old\n|\Z)", re.S)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (.+)$")
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+)$")


def edits_from_excerpt(excerpt: str, paths: Sequence[str]) -> list[Edit]:
    """The edits of a ``ToolObserved.input_excerpt`` (ingest's format, or a patch)."""
    if not excerpt:
        return []
    pairs = _PAIR.findall(excerpt)
    if pairs:
        path = paths[0] if paths else ""
        return [Edit(path, old, new) for old, new in pairs if path and old != new]
    return edits_from_patch(excerpt, paths[0] if paths else "")


def edits_from_patch(patch: str, default_path: str = "") -> list[Edit]:
    """Hunks of an ``apply_patch`` envelope or a unified diff as (old, new) fragments per file."""
    edits: list[Edit] = []
    path, old, new = default_path, list[str](), list[str]()

    def flush() -> None:
        if path and (old or new) and old != new:
            edits.append(Edit(path, "\n".join(old), "\n".join(new)))
        old.clear()
        new.clear()

    for line in patch.splitlines():
        header = _PATCH_FILE.match(line) or _DIFF_FILE.match(line)
        if header:
            flush()
            path = header.group(1).strip()
        elif line.startswith(("@@", "*** End", "*** Begin", "--- ", "diff ", "index ")):
            flush()
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" "):
            old.append(line[1:])
            new.append(line[1:])
    flush()
    return edits


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def edits_from_input(tool_input: Mapping[str, Any], path: str) -> list[Edit]:
    """The edits of an agent's ``tool_input`` for the file at ``path``."""
    if "old_string" in tool_input or "new_string" in tool_input:
        pairs = [(_text(tool_input.get("old_string")), _text(tool_input.get("new_string")))]
    else:
        raw = tool_input.get("edits")
        pairs = [
            (_text(e.get("old_string")), _text(e.get("new_string")))
            for e in (raw if isinstance(raw, list) else [])
            if isinstance(e, Mapping)
        ]
    if not pairs:
        patch = next((v for k in ("patch", "input", "diff") if isinstance(v := tool_input.get(k), str)), "")
        return edits_from_patch(patch, path) if patch else []
    return [Edit(path, old, new) for old, new in pairs if path and old != new]
