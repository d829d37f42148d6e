"""Gemini CLI hook payloads as domain events.

Gemini names its hooks after the agent loop rather than the UI: ``BeforeAgent`` carries the user's
prompt (there is no ``UserPromptSubmit``), ``AfterAgent`` the final ``prompt_response``,
``BeforeTool``/``AfterTool`` the tool calls (snake_case tool names such as ``run_shell_command``,
``read_file``, ``replace``), and ``PreCompress`` the compaction. A tool's failure is not a separate
event: ``AfterTool`` carries ``tool_response.error``, which ``post_tool_event`` turns into ``ToolFailed``.
Model-level hooks (``BeforeModel``, ``AfterModel``, ``BeforeToolSelection``) are kept as observations.
"""

from __future__ import annotations

from typing import Any

from codememory.events import CompactionCheckpointed, Event
from codememory.ingest.normalize.claude import prompt_event, tool_call
from codememory.ingest.normalize.common import (
    EXCERPT_CAP,
    Context,
    clean,
    line,
    observation,
    session_ended,
    session_started,
    text_of,
)
from codememory.ingest.normalize.tools import post_tool_event, tool_observed

__all__ = ["normalize"]


def normalize(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    """Gemini CLI's hook events."""
    event = ctx.hook_event
    if event == "SessionStart":
        return session_started(ctx, payload.get("source"), payload.get("model"))
    if event == "SessionEnd":
        return session_ended(ctx, payload.get("reason"))
    if event == "BeforeAgent":
        return prompt_event(ctx, text_of(payload, "prompt"))
    if event == "BeforeTool":
        return [tool_observed(ctx, tool_call(payload), "pre")]
    if event == "AfterTool":
        return [post_tool_event(ctx, tool_call(payload))]
    if event == "PreCompress":
        return [CompactionCheckpointed(**ctx.base(), trigger=line(payload.get("trigger"), 100))]
    if event == "AfterAgent":
        response = clean(text_of(payload, "prompt_response"), EXCERPT_CAP)
        return [observation(ctx, payload, response or "Agent finished its turn")]
    return [observation(ctx, payload)]
