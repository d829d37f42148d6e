"""The code graph's nodes and edges: what each kind of node holds, and validity over time.

Node payloads are small mutable records owned by one ``CodeGraph`` (the fold updates them in place under
the graph's lock); every query answers with frozen values instead, so nothing a reader holds changes.
Validity is a list of (time, alive) marks sorted by time: a file or symbol is valid at ``t`` when the
last mark at or before ``t`` says alive. Marks come from extraction (alive at receipt), deletion (dead at
receipt) and commits (alive or dead at the authored time), so history imported after indexing still
answers "did it exist then?".
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Literal

from codememory.clip import clip

__all__ = [
    "CODE_EDGES",
    "EDGE_KINDS",
    "Change",
    "CommitNode",
    "Edge",
    "EdgeKind",
    "FileNode",
    "Key",
    "MemoryNode",
    "Node",
    "SessionNode",
    "SymbolNode",
    "alive_at",
    "alive_now",
    "mark",
    "symbol_doc",
]

EdgeKind = Literal[
    "contains",
    "imports",
    "calls",
    "inherits",
    "references",
    "modified_by",
    "parent",
    "mentions",
    "in_session",
    "co_changed",
]
EDGE_KINDS: frozenset[str] = frozenset(EdgeKind.__args__)  # type: ignore[attr-defined]
CODE_EDGES: frozenset[str] = frozenset({"contains", "imports", "calls", "inherits", "references"})

Key = tuple[str, ...]
Change = tuple[float, str, str]  # (time, digest or content hash or "", commit sha or "")
Life = list[tuple[float, bool]]


def mark(life: Life, at: float, alive: bool) -> None:
    """Record that the node became alive (or dead) at ``at``; marks stay sorted, one per instant."""
    i = bisect.bisect_right(life, (at, True))
    if i and life[i - 1][0] == at:
        life[i - 1] = (at, alive)
    else:
        life.insert(i, (at, alive))


def alive_at(life: Life, at: float) -> bool | None:
    """True/False from the last mark at or before ``at``; None when nothing is known that early."""
    i = bisect.bisect_right(life, (at, True))
    return life[i - 1][1] if i else None


DOC_CHARS = 300  # a symbol's doc in the graph: enough to say what it is for, small at Django's 40,000 symbols


def symbol_doc(docstring: str) -> str:
    """What the graph keeps of a docstring: its first paragraph, whitespace folded, at most ``DOC_CHARS``
    (the full text is code search's; the graph holds every symbol in memory)."""
    first = " ".join(docstring.strip().split("\n\n", 1)[0].split())
    return clip(first, DOC_CHARS)


def alive_now(life: Life) -> bool:
    return bool(life) and life[-1][1]


@dataclass(slots=True)
class FileNode:
    repo: str
    path: str
    module: str = ""
    language: str = ""
    content_hash: str = ""
    parsed: bool = False
    indexed: bool = False  # an extraction has been folded (not only seen in a commit)
    life: Life = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    seq: int = 0

    @property
    def key(self) -> Key:
        return ("file", self.repo, self.path)


@dataclass(slots=True)
class SymbolNode:
    repo: str
    qualname: str
    name: str = ""
    kind: str = ""
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    parent: str = ""
    signature: str = ""
    doc: str = ""  # the docstring's first paragraph, at most DOC_CHARS (``symbol_doc``)
    digest: str = ""
    changed_at: float | None = None
    first_indexed: bool = False  # first seen when its file was first indexed: its age is unknown
    history: list[Change] = field(default_factory=list)
    life: Life = field(default_factory=list)
    seq: int = 0

    @property
    def key(self) -> Key:
        return ("symbol", self.repo, self.qualname)


@dataclass(slots=True)
class MemoryNode:
    memory_id: str
    created_at: float
    session: str = ""
    repo: str = ""
    paths: tuple[str, ...] = ()
    text: str = ""
    seq: int = 0
    memory_type: str = ""  # a commit's message is a memory of type "commit"

    @property
    def key(self) -> Key:
        return ("memory", self.memory_id)


@dataclass(slots=True)
class SessionNode:
    session_id: str

    @property
    def key(self) -> Key:
        return ("session", self.session_id)


@dataclass(slots=True)
class CommitNode:
    repo: str
    sha: str
    authored_at: float = 0.0
    author: str = ""
    summary: str = ""
    recorded: bool = False  # False for a parent only known by its sha so far

    @property
    def key(self) -> Key:
        return ("commit", self.repo, self.sha)


Node = FileNode | SymbolNode | MemoryNode | SessionNode | CommitNode


@dataclass(slots=True)
class Edge:
    kind: str
    weight: float = 1.0
