"""``CodeGraph``: the graph store and the one fold entry point that writes it.

Why a module of its own: the state and its primitives (``store.GraphStore``) are read by queries and
written by the fold modules; dispatching a LOG event to the fold that owns it lives here, above both,
so the imports run one way (graph -> fold_code / fold_history / fold_memory -> store) and no module
of the package imports another in a circle. Readers take a ``GraphStore``; everything that folds takes
a ``CodeGraph``.
"""

from __future__ import annotations

from datetime import datetime

from codememory.codegraph import fold_code, fold_history, fold_memory
from codememory.codegraph.digest import graph_digest
from codememory.codegraph.errors import InvalidEventError
from codememory.codegraph.store import GraphStore
from codememory.events import (
    CommitRecorded,
    Envelope,
    FileDeleted,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    SymbolsExtracted,
)

__all__ = ["CodeGraph", "epoch"]


def epoch(moment: datetime) -> float:
    return moment.timestamp()


class CodeGraph(GraphStore):
    """One tenant's graph. Mutate only through ``apply``; read through ``queries``."""

    def apply(self, envelope: Envelope, seq: int) -> bool:
        """Fold one LOG event at sequence ``seq``; False when it was skipped (already applied)."""
        with self.lock:
            if seq <= self.last_seq:
                return False
            event, at = envelope.payload, epoch(envelope.occurred_at)
            _check(event)
            self.writes += 1  # odd: a fold is under way (see ``queries.read``)
            try:
                self._fold(envelope, event, at, seq)
            finally:
                self.writes += 1
            self.last_seq = seq
            self.version += 1
            return True

    def _fold(self, envelope: Envelope, event: object, at: float, seq: int) -> None:
        match event:
            case MemoryEmbedded():  # half of a memory's events: no memory and no code, only the position
                pass
            case SymbolsExtracted():
                self.code_version += 1
                fold_code.apply_symbols(self, event, at, seq)
            case FileDeleted():
                self.code_version += 1
                fold_code.apply_deleted(self, event, at, seq)
            case CommitRecorded():  # files a commit touched are made, renamed or deleted
                self.code_version += 1
                fold_history.apply_commit(self, event)
                fold_memory.apply_memory(self, envelope, seq)  # its message is a memory too
            case MemoryForgotten():
                fold_memory.forget(self, event.memory_id)
            case MemoryRefined():
                fold_memory.refine(self, event.memory_id, event.text)
            case _:
                fold_memory.apply_memory(self, envelope, seq)

    def digest(self) -> str:
        with self.lock:
            return graph_digest(self)


def _check(event: object) -> None:
    match event:
        case SymbolsExtracted() | FileDeleted() if not event.repo or not event.path:
            raise InvalidEventError(f"{type(event).__name__} without a repository or path")
        case CommitRecorded() if not event.repo or not event.sha:
            raise InvalidEventError("CommitRecorded without a repository or sha")
        case MemoryForgotten() | MemoryRefined() if not event.memory_id:
            raise InvalidEventError(f"{type(event).__name__} without a memory id")
