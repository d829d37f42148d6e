"""Cursor (IDE and ``cursor-agent`` CLI) hook payloads as domain events.

Cursor has two generations of hooks at once: purpose-built ones with top-level fields
(``beforeShellExecution`` with ``command``, ``afterFileEdit`` with ``file_path`` and ``edits``,
``beforeReadFile``) and generic Claude-like ones (``preToolUse``/``postToolUse``/``postToolUseFailure``
with ``tool_name``). Both are mapped onto the same tool events; the session is ``conversation_id`` (newer
builds also send ``session_id``, equal to it) and the cwd falls back to ``workspace_roots[0]``.
"""

from __future__ import annotations

from typing import Any

from codememory.events import (
    CompactionCheckpointed,
    Event,
    SubagentCompleted,
)
from codememory.ingest.normalize.claude import prompt_event, tool_call
from codememory.ingest.normalize.common import (
    EXCERPT_CAP,
    Context,
    clean,
    first_text,
    line,
    observation,
    session_ended,
    session_started,
    squash,
    text_of,
)
from codememory.ingest.normalize.tools import ToolCall, post_tool_event, tool_failed, tool_observed

__all__ = ["normalize"]

_PRE_BUILTIN = {
    "beforeShellExecution": "Shell",
    "beforeMCPExecution": "MCP",
    "beforeReadFile": "Read",
    "beforeTabFileRead": "TabRead",
}
_POST_BUILTIN = {
    "afterShellExecution": "Shell",
    "afterMCPExecution": "MCP",
    "afterFileEdit": "Edit",
    "afterTabFileEdit": "TabEdit",
}
_MESSAGE_EVENTS = {"afterAgentResponse": "text", "afterAgentThought": "text"}


def normalize(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    """Cursor's hook events."""
    event = ctx.hook_event
    if event == "sessionStart":
        source = first_text(payload, "source") or ("background" if payload.get("is_background_agent") else "")
        return session_started(ctx, source, payload.get("model"))
    if event == "sessionEnd":
        reason = first_text(payload, "reason", "final_status")
        return session_ended(ctx, reason)
    if event == "beforeSubmitPrompt":
        return prompt_event(ctx, text_of(payload, "prompt"))
    if event in _PRE_BUILTIN:
        return [tool_observed(ctx, _builtin_call(_PRE_BUILTIN[event], payload), "pre")]
    if event in _POST_BUILTIN:
        return [post_tool_event(ctx, _builtin_call(_POST_BUILTIN[event], payload))]
    if event == "preToolUse":
        return [tool_observed(ctx, tool_call(payload), "pre")]
    if event == "postToolUse":
        return [post_tool_event(ctx, tool_call(payload))]
    if event == "postToolUseFailure":
        error = first_text(payload, "error_message", "error") or "tool failed"
        if payload.get("is_interrupt") is True:
            error = f"interrupted: {error}"
        return [tool_failed(ctx, tool_call(payload), error)]
    if event == "subagentStop":
        result = first_text(payload, "result", "summary", "last_assistant_message", "status")
        subagent = first_text(payload, "subagent_type", "agent_type")
        return [SubagentCompleted(**ctx.base(), subagent_type=line(subagent, 100), result=clean(result))]
    if event == "preCompact":
        summary = first_text(payload, "summary", "custom_instructions")
        return [
            CompactionCheckpointed(
                **ctx.base(), trigger=line(payload.get("trigger"), 100), summary=clean(summary)
            )
        ]
    if event in _MESSAGE_EVENTS:
        summary = clean(text_of(payload, _MESSAGE_EVENTS[event]), EXCERPT_CAP)
        return [observation(ctx, payload, summary)]
    if event == "stop":
        return [
            observation(
                ctx,
                payload,
                squash(f"Agent stopped: {line(first_text(payload, 'status'), 100) or 'unknown'}"),
            )
        ]
    return [observation(ctx, payload)]


def _builtin_call(tool: str, payload: dict[str, Any]) -> ToolCall:
    """A tool call from a purpose-built Cursor hook, whose arguments sit at the top level."""
    if tool == "MCP":
        tool = first_text(payload, "tool_name") or "MCP"
        tool_input = payload.get("tool_input")
        arguments: dict[str, Any] = tool_input if isinstance(tool_input, dict) else {"input": tool_input}
        return ToolCall(tool=tool, tool_input=arguments, kind="other", output=text_of(payload, "result_json"))
    arguments = {key: payload[key] for key in ("command", "file_path", "edits") if key in payload}
    exit_code = payload.get("exit_code", payload.get("exitCode"))
    return ToolCall(
        tool=tool,
        tool_input=arguments,
        output=first_text(payload, "output", "stdout"),
        exit_code=exit_code if type(exit_code) is int else None,
    )
