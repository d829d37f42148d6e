"""Code events: what the graph service and ``codememory index`` learn about a repository, and what the
reviews service concluded about commits and edits.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from codememory.events.base import _AgentEvent, _Event

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
    instruction_id: str = ""  # the event id of the prompt ``instruction`` quotes (its key seals it)
