"""Agent events: what the hooks of Claude Code, Cursor, Codex and Gemini CLI reported, as ingest wrote it.

Each carries ``session_id`` and ``agent`` (``_AgentEvent``) so every memory can be traced to the session
that produced it.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from codememory.events.base import _AgentEvent

ToolKind = Literal["read", "edit", "write", "search", "shell", "web", "task", "other"]


class SessionStarted(_AgentEvent, frozen=True, kw_only=True, tag="session.started"):
    source: str = ""
    model: str = ""


class SessionEnded(_AgentEvent, frozen=True, kw_only=True, tag="session.ended"):
    reason: str = ""


class PromptSubmitted(_AgentEvent, frozen=True, kw_only=True, tag="prompt.submitted"):
    prompt: str


class ToolObserved(_AgentEvent, frozen=True, kw_only=True, tag="tool.observed"):
    """A tool ran; ``phase`` says whether this was before (``pre``) or after (``post``) it ran."""

    tool: str
    kind: ToolKind = "other"
    phase: Literal["pre", "post"] = "post"
    paths: tuple[str, ...] = ()
    command: str = ""
    summary: str = ""
    input_excerpt: str = ""
    output_excerpt: str = ""
    succeeded: bool = True
    tool_use_id: str = ""


class ToolFailed(_AgentEvent, frozen=True, kw_only=True, tag="tool.failed"):
    tool: str
    kind: ToolKind = "other"
    paths: tuple[str, ...] = ()
    command: str = ""
    error: str = ""
    tool_use_id: str = ""


class SubagentCompleted(_AgentEvent, frozen=True, kw_only=True, tag="subagent.completed"):
    subagent_type: str = ""
    result: str = ""


class CompactionCheckpointed(_AgentEvent, frozen=True, kw_only=True, tag="compaction.checkpointed"):
    trigger: str = ""
    summary: str = ""


class ObservationRecorded(_AgentEvent, frozen=True, kw_only=True, tag="observation.recorded"):
    """A hook event codememory has no specific type for; kept, never dropped."""

    hook_event: str
    summary: str = ""
    fields: dict[str, Any] = msgspec.field(default_factory=dict)
