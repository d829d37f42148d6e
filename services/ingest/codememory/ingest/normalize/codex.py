"""OpenAI Codex CLI hook payloads as domain events.

Codex adopted Claude Code's hook names and fields (``SessionStart``, ``UserPromptSubmit``,
``PreToolUse``/``PostToolUse``, ``Stop`` with ``last_assistant_message``, ``PreCompact``...), so it reuses
the Claude-style mapping. What differs is the tool vocabulary: shell-like tools arrive as ``Bash`` with
``{"command": ...}``, file changes as ``apply_patch`` whose patch text names the files (read by
``tools.patch_paths``), plan updates as ``update_plan``; those are covered by the shared tool tables.
"""

from __future__ import annotations

from typing import Any

from codememory.events import Event
from codememory.ingest.normalize.claude import normalize_claude_style
from codememory.ingest.normalize.common import Context

__all__ = ["normalize"]


def normalize(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    """Codex's hook events."""
    return normalize_claude_style(ctx, payload)
