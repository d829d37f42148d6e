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
    agent: str = ""  # the agent it came from (an import keeps what export wrote)


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


class DataErased(_Event, frozen=True, kw_only=True, tag="data.erased"):
    """Keys were destroyed (``codememory erase``): the text of these records is gone from LOG for good.

    ``scope`` says what was erased (a user, a session, a memory); ``subject_digest`` is a digest of its
    id, never the id (a user's name is itself personal); each memory it covers is also forgotten by a
    ``MemoryForgotten`` appended just before, which is what projections fold.
    """

    scope: Literal["user", "session", "memory"]
    subject_digest: str
    memory_ids: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    keys_destroyed: int = 0


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


# --- consolidation: what the consolidate service concluded, and what recall returned ----------------
# Every result of a cycle is an event carrying its inputs, so replay rebuilds it without running the
# cycle again, and ``codememory history`` can show how a memory came to be.


class MemorySource(msgspec.Struct, frozen=True, kw_only=True):
    """One memory folded into another: where and when it was said."""

    memory_id: str
    session_id: str = ""
    created_at: float = 0.0
    memory_type: str = ""


class MemoriesMerged(_Event, frozen=True, kw_only=True, tag="memories.merged"):
    """Memories that state the same thing became one: ``canonical_id`` keeps the best wording and its
    sources; each of ``merged_ids`` points to it and leaves recall (history only)."""

    canonical_id: str
    merged_ids: tuple[str, ...]
    sources: tuple[MemorySource, ...] = ()
    importance: float | None = None  # the group's: the highest of its members
    similarity: float = 0.0
    cycle_id: str = ""
    reason: str = ""  # the evidence the cycle merged on (similarity, same statement, sessions)


class MemoriesUnmerged(_Event, frozen=True, kw_only=True, tag="memories.unmerged"):
    """A merge taken back: each of ``memory_ids`` is its own memory again (active, in recall) and
    leaves ``canonical_id``'s sources; later cycles keep the two apart. Empty ``cycle_id``: a person."""

    canonical_id: str
    memory_ids: tuple[str, ...]
    reason: str = ""
    cycle_id: str = ""


class MemorySuperseded(_Event, frozen=True, kw_only=True, tag="memory.superseded"):
    """A later memory changed what ``memory_id`` stated; an empty ``cycle_id`` means a person said so."""

    memory_id: str
    superseded_by: str
    superseded_at: float = 0.0  # when the later memory was stated (seconds since the epoch)
    reason: str = ""
    similarity: float = 0.0
    cycle_id: str = ""


class MemoryAccess(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    session_id: str = ""
    purpose: Literal["recall", "context"] = "recall"
    at: float = 0.0


class MemoriesRecalled(_Event, frozen=True, kw_only=True, tag="memories.recalled"):
    """What recall and session context returned (which memories went into which turn), in batches."""

    accesses: tuple[MemoryAccess, ...]


class MemoriesArchived(_Event, frozen=True, kw_only=True, tag="memories.archived"):
    """Memories that expired or were never used leave recall; LOG keeps them, history shows them."""

    memory_ids: tuple[str, ...]
    reason: str = ""
    cycle_id: str = ""


class ImportanceAdjustment(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    importance: float


class ImportanceDecayed(_Event, frozen=True, kw_only=True, tag="importance.decayed"):
    """Importance after age and use: what nobody used fades, what is used or tied to live code stays."""

    adjustments: tuple[ImportanceAdjustment, ...]
    cycle_id: str = ""


InsightKind = Literal["fix", "correction", "convention"]


class InsightDerived(_Event, frozen=True, kw_only=True, tag="insight.derived"):
    """A reusable lesson from a session: a memory of type ``insight`` (``phrased_by`` names the model
    that worded it; empty when it was extracted)."""

    insight_id: str
    kind: InsightKind
    title: str
    situation: str = ""
    what_worked: str = ""
    evidence_ids: tuple[str, ...] = ()
    session_id: str = ""
    repo: str = ""
    paths: tuple[str, ...] = ()
    phrased_by: str = ""
    cycle_id: str = ""


class SessionSummarized(_Event, frozen=True, kw_only=True, tag="session.summarized"):
    """What a finished session did, for the next session's context: a memory of type ``summary``."""

    summary_id: str
    session_id: str
    summary: str
    repo: str = ""
    paths: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    phrased_by: str = ""
    cycle_id: str = ""
    ended_at: float = 0.0  # the session's last step (seconds since the epoch): the summary's own time


class MemoryLinks(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    neighbours: tuple[str, ...] = ()  # nearest memories by meaning, best first
    code: tuple[str, ...] = ()  # repository paths the memory names or touches that exist


class MemoriesLinked(_Event, frozen=True, kw_only=True, tag="memories.linked"):
    links: tuple[MemoryLinks, ...]
    cycle_id: str = ""


class ConsolidationCompleted(_Event, frozen=True, kw_only=True, tag="consolidation.completed"):
    """A cycle ended: what it did, and the LOG position it saw (its inputs are the events before it)."""

    cycle_id: str
    trigger: Literal["schedule", "request"] = "schedule"
    up_to_seq: int = 0
    merged: int = 0
    superseded: int = 0
    archived: int = 0
    decayed: int = 0
    insights: int = 0
    summaries: int = 0
    linked: int = 0
    took_s: float = 0.0


# --- review: what the reviews service concluded about commits and edits --------------------------------


class SymbolChange(msgspec.Struct, frozen=True, kw_only=True):
    """One changed symbol of a reviewed commit and how many depend on it (directly, within reach)."""

    path: str
    qualname: str
    direct_dependents: int = 0
    transitive_dependents: int = 0


class CommitReviewed(_Event, frozen=True, kw_only=True, tag="commit.reviewed"):
    """A recorded commit reviewed against the code graph as it stood: what changed, what depends on it,
    and a risk in [0, 1] with its parts (``risk_parts``: fan_in, centrality, churn, untested)."""

    review_id: str
    repo: str
    sha: str
    changed: tuple[SymbolChange, ...] = ()
    files: tuple[str, ...] = ()
    dependents: int = 0
    risk: float = 0.0
    risk_parts: dict[str, float] = msgspec.field(default_factory=dict)
    graph_seq: int = 0  # the LOG position of the graph it was reviewed against


class ForgettingDetected(_AgentEvent, frozen=True, kw_only=True, tag="forgetting.detected"):
    """An edit undid part of what an earlier turn of the same session changed on the user's instruction."""

    detection_id: str
    path: str
    instruction: str
    instructed_turn: int = 0
    undone: tuple[str, ...] = ()
    tool_use_id: str = ""
    edit_seq: int = 0  # the LOG position of the edit that undid it


class EmbeddingModelRequested(_Event, frozen=True, kw_only=True, tag="embedding.model.requested"):
    """``codememory reembed --model``: from here on the embed service also writes this model's vectors,
    and embeds every memory already in LOG with it; the gateway switches to it once its index caught up."""

    model: str  # the spec (``codememory.embedding.models``), never a secret
    model_id: str = ""  # what its vectors are tagged with (``MemoryEmbedded.model``)


class EmbeddingBackfillCompleted(_Event, frozen=True, kw_only=True, tag="embedding.backfill.completed"):
    """The embed service embedded every memory up to ``until_seq`` with a requested model."""

    model: str
    model_id: str = ""
    until_seq: int = 0
    memories: int = 0


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
    | DataErased
    | MemoryEmbedded
    | SymbolsExtracted
    | FileDeleted
    | CommitRecorded
    | SymbolsEmbedded
    | MemoriesMerged
    | MemoriesUnmerged
    | MemorySuperseded
    | MemoriesRecalled
    | MemoriesArchived
    | ImportanceDecayed
    | InsightDerived
    | SessionSummarized
    | MemoriesLinked
    | ConsolidationCompleted
    | CommitReviewed
    | ForgettingDetected
    | EmbeddingModelRequested
    | EmbeddingBackfillCompleted
)
