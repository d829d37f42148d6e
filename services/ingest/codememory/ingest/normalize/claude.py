"""Claude Code hook payloads (and the Claude-compatible ones Codex sends) as domain events.

Claude Code is the richest source: typed ``tool_response`` objects per tool, a distinct
``PostToolUseFailure`` event, ``SubagentStop`` and compaction hooks. Codex CLI deliberately mirrors these
event names and fields, so ``normalize_claude_style`` serves both; agent-specific quirks stay in their
own modules. Events without a specific domain type (Notification, PermissionRequest, Setup, ...) become
observations, so nothing an agent reports is silently dropped.
"""

from __future__ import annotations

from typing import Any

from codememory.events import (
    CompactionCheckpointed,
    Event,
    PromptSubmitted,
    SubagentCompleted,
)
from codememory.ingest.normalize.common import (
    EXCERPT_CAP,
    Context,
    clean,
    dict_of,
    first_text,
    line,
    list_of,
    observation,
    session_ended,
    session_started,
    squash,
    text_of,
)
from codememory.ingest.normalize.tools import ToolCall, post_tool_event, tool_failed, tool_observed
from codememory.redaction import is_injected_only

__all__ = ["normalize", "normalize_claude_style", "prompt_event", "tool_call"]


def normalize(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    """Claude Code's hook events."""
    return normalize_claude_style(ctx, payload)


def normalize_claude_style(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    """Events for the hook names Claude Code defined and Codex adopted."""
    event = ctx.hook_event
    if event == "SessionStart":
        return session_started(ctx, payload.get("source"), payload.get("model"))
    if event == "SessionEnd":
        return session_ended(ctx, payload.get("reason"))
    if event == "UserPromptSubmit":
        return prompt_event(ctx, text_of(payload, "prompt"))
    if event == "PreToolUse":
        return [tool_observed(ctx, tool_call(payload), "pre")]
    if event == "PostToolUse":
        return _post_tool_use(ctx, payload)
    if event == "PostToolUseFailure":
        error = first_text(payload, "error", "error_message") or "tool failed"
        if payload.get("is_interrupt") is True:
            error = f"interrupted: {error}"
        return [tool_failed(ctx, tool_call(payload), error)]
    if event == "SubagentStop":
        return [
            _subagent_completed(
                ctx,
                first_text(payload, "agent_type", "subagent_type"),
                text_of(payload, "last_assistant_message"),
            )
        ]
    if event in ("PreCompact", "PostCompact"):
        summary = first_text(payload, "compact_summary", "custom_instructions", "summary")
        return [
            CompactionCheckpointed(
                **ctx.base(), trigger=line(payload.get("trigger"), 100), summary=clean(summary)
            )
        ]
    if event in ("Stop", "SubagentStart", "PermissionRequest", "PermissionDenied", "PostToolBatch"):
        return [observation(ctx, payload, _summary(event, payload))]
    return [observation(ctx, payload)]


def prompt_event(ctx: Context, prompt: str) -> list[Event]:
    """A ``PromptSubmitted``, or nothing when the prompt is only codememory's injected context (or empty)."""
    if not prompt.strip() or is_injected_only(prompt):
        return []
    text = clean(prompt)
    return [PromptSubmitted(**ctx.base(), prompt=text)] if text else []


def tool_call(payload: dict[str, Any]) -> ToolCall:
    """The tool call of a Claude-style tool event."""
    tool_input = payload.get("tool_input")
    return ToolCall(
        tool=text_of(payload, "tool_name") or "unknown",
        tool_input=tool_input
        if isinstance(tool_input, dict)
        else {"input": tool_input}
        if tool_input
        else {},
        response=payload.get("tool_response", payload.get("tool_output")),
        tool_use_id=text_of(payload, "tool_use_id"),
    )


def _post_tool_use(ctx: Context, payload: dict[str, Any]) -> list[Event]:
    call = tool_call(payload)
    if call.tool in ("Task", "Agent"):
        result = _task_result(call.response)
        subagent = first_text(call.tool_input, "subagent_type") or "general-purpose"
        return [_subagent_completed(ctx, subagent, result or text_of(call.tool_input, "description"))]
    return [post_tool_event(ctx, call)]


def _task_result(response: object) -> str:
    if isinstance(response, str):
        return response
    texts = [text_of(item, "text") for item in list_of(response, "content")]
    return "\n".join(text for text in texts if text) or first_text(response, "result", "output")


def _subagent_completed(ctx: Context, subagent_type: str, result: str) -> SubagentCompleted:
    return SubagentCompleted(**ctx.base(), subagent_type=line(subagent_type, 100), result=clean(result))


def _summary(event: str, payload: dict[str, Any]) -> str:
    tool = line(text_of(payload, "tool_name"), 100)
    command = line(text_of(dict_of(payload, "tool_input"), "command"), 120)
    target = f"{tool} `{command}`" if command else tool
    if event == "Stop":
        return clean(text_of(payload, "last_assistant_message"), EXCERPT_CAP) or "Agent finished its turn"
    if event == "SubagentStart":
        return squash(f"Subagent {line(first_text(payload, 'agent_type'), 100) or 'unknown'} started")
    if event == "PermissionRequest":
        return squash(f"Permission requested for {target}")
    if event == "PermissionDenied":
        return squash(f"Permission denied for {target}: {line(text_of(payload, 'reason'))}")
    calls = list_of(payload, "tool_calls")
    names = ", ".join(line(text_of(item, "tool_name"), 100) for item in calls[:10])
    return squash(f"{len(calls)} tool calls: {names}")
