"""Domain events: the facts in the immutable log, named in the past tense.

Each is a frozen, keyword-only msgspec struct with a stable tag (``type`` on the wire). Tags never
change once shipped; new fields get defaults so older events still decode. Unknown fields are
tolerated (no ``forbid_unknown_fields``), so a newer producer never crashes an older consumer.

Agent-facing events carry ``session_id`` and ``agent`` so every memory can be traced to the session
that produced it. Derived facts (``MemoryEmbedded``) are events too: replay never re-runs a model.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

ToolKind = Literal["read", "edit", "write", "search", "shell", "web", "task", "other"]


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every domain event."""


class _AgentEvent(_Event, frozen=True, kw_only=True):
    session_id: str
    agent: str
    cwd: str = ""
    repo: str = ""
    branch: str = ""
    user: str = ""


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


class MemoryScope(msgspec.Struct, frozen=True, kw_only=True):
    repo: str = ""
    branch: str = ""
    user: str = ""
    session_id: str = ""
    paths: tuple[str, ...] = ()


class MemoryStored(_Event, frozen=True, kw_only=True, tag="memory.stored"):
    """An explicit memory: stored by an agent, a person, or an import."""

    memory_id: str
    text: str
    memory_type: str = "note"
    scope: MemoryScope = MemoryScope()
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    source: str = "api"
    created_at: str = ""


class MemoryRefined(_Event, frozen=True, kw_only=True, tag="memory.refined"):
    memory_id: str
    text: str = ""
    importance: float | None = None
    tags: tuple[str, ...] | None = None
    metadata: dict[str, str] | None = None


class MemoryDeprecated(_Event, frozen=True, kw_only=True, tag="memory.deprecated"):
    memory_id: str
    reason: str = ""


class MemoryForgotten(_Event, frozen=True, kw_only=True, tag="memory.forgotten"):
    memory_id: str
    reason: str = ""


class MemoryEmbedded(_Event, frozen=True, kw_only=True, tag="memory.embedded"):
    """A memory text's dense vector; ``text_digest`` ties it to the exact text embedded."""

    memory_id: str
    model: str
    text_digest: str
    vector: tuple[float, ...]


# --- code facts: what the graph service and `codememory index` learn about a repository -------------

SymbolKind = Literal["module", "class", "function", "method", "interface", "struct", "enum", "trait", "type"]
RefKind = Literal["calls", "inherits", "references"]


class Symbol(msgspec.Struct, frozen=True, kw_only=True):
    """One named definition in a file. ``qualname`` is unique in the repository (module path + nesting)."""

    qualname: str
    name: str
    kind: SymbolKind
    start_line: int
    end_line: int
    parent: str = ""
    signature: str = ""
    docstring: str = ""
    excerpt: str = ""
    digest: str = ""


class ImportRef(msgspec.Struct, frozen=True, kw_only=True):
    """An import as written: ``from module import name as alias`` (``name`` empty for a whole module)."""

    module: str
    name: str = ""
    alias: str = ""
    line: int = 0


class CodeRef(msgspec.Struct, frozen=True, kw_only=True):
    """A use of a name inside ``source`` (a qualname of this file), not yet resolved across files."""

    kind: RefKind
    source: str
    target: str
    line: int = 0


class SymbolsExtracted(_Event, frozen=True, kw_only=True, tag="symbols.extracted"):
    """A file's symbols and references at one content hash; ``parsed`` is False for unsupported files."""

    repo: str
    path: str
    content_hash: str
    language: str = ""
    module: str = ""
    parsed: bool = True
    symbols: tuple[Symbol, ...] = ()
    imports: tuple[ImportRef, ...] = ()
    refs: tuple[CodeRef, ...] = ()
    commit: str = ""


class FileDeleted(_Event, frozen=True, kw_only=True, tag="file.deleted"):
    """The file is gone: its symbols are no longer valid from this event on."""

    repo: str
    path: str
    commit: str = ""


class FileChange(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    status: Literal["added", "modified", "deleted", "renamed"] = "modified"
    old_path: str = ""
    added_lines: int = 0
    deleted_lines: int = 0
    symbols: tuple[str, ...] = ()


class CommitRecorded(_Event, frozen=True, kw_only=True, tag="commit.recorded"):
    """A git commit: its place in history and what it changed (renames followed)."""

    repo: str
    sha: str
    parents: tuple[str, ...] = ()
    author: str = ""
    authored_at: float = 0.0
    message: str = ""
    files: tuple[FileChange, ...] = ()


class SymbolsEmbedded(_Event, frozen=True, kw_only=True, tag="symbols.embedded"):
    """Dense vectors of one file's symbols at one content hash (code search), one per qualname."""

    repo: str
    path: str
    content_hash: str
    model: str
    qualnames: tuple[str, ...]
    vectors: tuple[tuple[float, ...], ...]


Event = (
    SessionStarted
    | SessionEnded
    | PromptSubmitted
    | ToolObserved
    | ToolFailed
    | SubagentCompleted
    | CompactionCheckpointed
    | ObservationRecorded
    | MemoryStored
    | MemoryRefined
    | MemoryDeprecated
    | MemoryForgotten
    | MemoryEmbedded
    | SymbolsExtracted
    | FileDeleted
    | CommitRecorded
    | SymbolsEmbedded
)
