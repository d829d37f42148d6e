"""A review's answer: frozen values, one struct per part, so the gateway and tests read the same thing.

``Review`` holds the six parts the CLI prints and ``--json`` carries (``changed``, ``dependents``,
``risk``, ``missing``, ``memories``, ``history``), plus the diff's files (and whether the graph knows each).
"""

from __future__ import annotations

import msgspec

__all__ = [
    "ChangedSymbol",
    "Dependent",
    "HistoryCommit",
    "LinkedMemory",
    "MissingChange",
    "Review",
    "ReviewFile",
    "Risk",
    "RiskPart",
]


class ReviewFile(msgspec.Struct, frozen=True, kw_only=True):
    """One file of the diff: its path (new side), old path, what happened, whether the graph knows it."""

    path: str
    old_path: str
    status: str  # added, deleted, renamed, modified
    indexed: bool
    added_lines: int = 0
    deleted_lines: int = 0


class ChangedSymbol(msgspec.Struct, frozen=True, kw_only=True):
    """The innermost function, method or class whose recorded lines the diff touches."""

    repo: str
    qualname: str
    name: str
    kind: str
    path: str
    start_line: int
    end_line: int
    signature: str = ""
    signature_changed: bool = False
    status: str = "modified"  # modified, deleted (all its lines removed), added (new side only)


class Dependent(msgspec.Struct, frozen=True, kw_only=True):
    """Code that depends on a changed symbol or file, ``distance`` edges away, by ``edge``."""

    kind: str  # symbol or file
    name: str  # qualname or path
    path: str
    edge: str  # calls, imports, inherits, references
    distance: int
    via: str  # the changed symbol (or file) it depends on


class RiskPart(msgspec.Struct, frozen=True, kw_only=True):
    name: str  # centrality, fan_in, churn, fix_ratio, untested
    value: float  # 0..1, higher is riskier
    weight: float
    detail: str


class Risk(msgspec.Struct, frozen=True, kw_only=True):
    score: float  # 0..1, the weighted mean of the parts
    level: str  # low, medium, high
    parts: tuple[RiskPart, ...]


class MissingChange(msgspec.Struct, frozen=True, kw_only=True):
    """A file (and symbol, when one is meant) that likely should change with this diff but does not."""

    path: str
    symbol: str = ""
    score: float
    reason: str


class LinkedMemory(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    text: str
    created_at: float
    about: tuple[str, ...]  # the changed symbols and files it is linked to
    suspect: bool = False
    suspect_reason: str = ""


class HistoryCommit(msgspec.Struct, frozen=True, kw_only=True):
    """A commit whose message explains the changed code, and why it is listed."""

    sha: str
    subject: str
    authored_at: float
    author: str
    score: float
    reason: str
    symbols: tuple[str, ...] = ()


class Review(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    files: tuple[ReviewFile, ...]  # the diff's files, in its order
    changed: tuple[ChangedSymbol, ...]
    dependents: tuple[Dependent, ...]
    risk: Risk
    missing: tuple[MissingChange, ...]
    memories: tuple[LinkedMemory, ...]
    history: tuple[HistoryCommit, ...]
