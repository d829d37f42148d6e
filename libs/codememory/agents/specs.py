"""Where each coding agent reads project hooks from, and which of its events codememory listens to.

Every agent spells the same idea differently: the file, the event names, the entry shape and even
the unit of ``timeout``. Keeping that as data (one ``AgentSpec`` per agent) lets a single merge
routine serve all of them, and puts each agent's quirks in one reviewable table instead of four
code paths. Sources for each table are cited inline.

Two layouts exist:

* ``grouped`` (Claude Code, Codex, Gemini CLI): ``hooks.<Event>`` is a list of matcher groups,
  ``{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": N}]}``.
* ``flat`` (Cursor): ``hooks.<event>`` is a list of ``{"command": ...}`` handlers, and the file
  carries ``"version": 1`` at the top.

Context hooks (session start, prompt submit) block the user while they run, so they get a short
timeout; capture hooks get a bounded one so a hung process can never stall an agent for the
agent's own default (600 s in Claude Code and Codex).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Literal

Layout = Literal["grouped", "flat"]


@dataclass(frozen=True, slots=True)
class EventHook:
    """One event we register: its agent-specific name, optional matcher and timeout."""

    event: str
    matcher: str | None = None
    timeout: int | None = None


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """Everything needed to write one agent's project hook config."""

    name: str
    relative_path: PurePosixPath
    layout: Layout
    events: tuple[EventHook, ...]
    handler_extras: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    top_level_defaults: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def hook_command(self, command: str) -> str:
        """The exact command string every one of this agent's hooks runs."""
        return f"{command} hook --agent {self.name}"


def _frozen(**items: object) -> Mapping[str, object]:
    return MappingProxyType(dict(items))


# Claude Code: <project>/.claude/settings.json, timeout in seconds (default 600).
# Source: SchemaStore claude-code-settings.json ($defs.hookMatcher / hookCommand), copied into
# shared/data/schemas, and the hooks reference at https://code.claude.com/docs/en/hooks .
_CLAUDE = AgentSpec(
    name="claude",
    relative_path=PurePosixPath(".claude/settings.json"),
    layout="grouped",
    events=(
        EventHook("SessionStart", timeout=10),
        EventHook("UserPromptSubmit", timeout=5),
        EventHook("PostToolUse", matcher="*", timeout=30),
        EventHook("PostToolUseFailure", matcher="*", timeout=30),
        EventHook("SubagentStop", timeout=30),
        EventHook("PreCompact", timeout=30),
        EventHook("Stop", timeout=30),
        EventHook("SessionEnd", timeout=30),
    ),
)

# Cursor: <project>/.cursor/hooks.json, {"version": 1, "hooks": {event: [{"command": ...}]}}.
# Event names: cursor.com/docs/agent/hooks as typed by the cursor-hooks npm package, and the real
# payloads in shared/data/hooks/cursor_*.json. No timeout: the widely used schema for this file
# (cursor-hooks schema/hooks.schema.json) allows only "command" on a handler.
_CURSOR = AgentSpec(
    name="cursor",
    relative_path=PurePosixPath(".cursor/hooks.json"),
    layout="flat",
    events=(
        EventHook("sessionStart"),
        EventHook("beforeSubmitPrompt"),
        EventHook("postToolUse"),
        EventHook("postToolUseFailure"),
        EventHook("afterFileEdit"),
        EventHook("subagentStop"),
        EventHook("preCompact"),
        EventHook("stop"),
        EventHook("sessionEnd"),
    ),
    top_level_defaults=_frozen(version=1),
)

# Codex CLI: <project>/.codex/hooks.json (JSON, so no TOML writer is needed), timeout in seconds
# (default 600). Source: openai/codex codex-rs/hooks/src/engine/discovery.rs reads
# "<config folder>/hooks.json"; config.rs: HookHandlerConfig::Command {command, timeout
# (alias timeoutSec), async, statusMessage}; developers.openai.com/codex/hooks lists the events.
# Unknown event keys are ignored by older versions (serde default), so newer events are safe.
_CODEX = AgentSpec(
    name="codex",
    relative_path=PurePosixPath(".codex/hooks.json"),
    layout="grouped",
    events=(
        EventHook("SessionStart", timeout=10),
        EventHook("UserPromptSubmit", timeout=5),
        EventHook("PostToolUse", matcher="*", timeout=30),
        EventHook("SubagentStop", timeout=30),
        EventHook("PreCompact", timeout=30),
        EventHook("Stop", timeout=30),
    ),
)

# Gemini CLI: <project>/.gemini/settings.json, timeout in MILLISECONDS (default 60000).
# Source: google-gemini/gemini-cli docs/hooks/reference.md and docs/hooks/index.md. "name" is the
# identifier used by `/hooks enable|disable`.
_GEMINI = AgentSpec(
    name="gemini",
    relative_path=PurePosixPath(".gemini/settings.json"),
    layout="grouped",
    events=(
        EventHook("SessionStart", timeout=10_000),
        EventHook("BeforeAgent", timeout=5_000),
        EventHook("AfterTool", matcher="*", timeout=30_000),
        EventHook("AfterAgent", timeout=30_000),
        EventHook("PreCompress", timeout=30_000),
        EventHook("SessionEnd", timeout=30_000),
    ),
    handler_extras=_frozen(name="codememory"),
)

SPECS: Mapping[str, AgentSpec] = MappingProxyType(
    {spec.name: spec for spec in (_CLAUDE, _CURSOR, _CODEX, _GEMINI)}
)
