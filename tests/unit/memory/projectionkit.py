"""What the fold tests of the memory projection share (bulk and pooled): a projection over a fresh
Qdrant Edge shard in a directory of its own, and memory events numbered as LOG numbers them, so that
two folds of one history can be compared by their digests."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from codememory.events import Envelope, new_envelope
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.memory.projection import FLUSH_EVERY_S
from codememory.vectorstore import EdgeVectorIndex, VectorIndex

DIM = 4
TENANT = "t"


def projection(
    path: Path,
    *,
    flush_every_s: float = FLUSH_EVERY_S,
    wrap: Callable[[EdgeVectorIndex], VectorIndex] | None = None,
) -> MemoryProjection:
    """A projection over ``path/shard`` saving its position in ``path/position.json``; ``wrap`` puts
    an index of the test's own (a payload cache that counts flushes) in front of the shard."""
    shard = EdgeVectorIndex(path / "shard", DIM)
    index = shard if wrap is None else wrap(shard)
    return MemoryProjection(
        index, SparseEncoder(), Position(path / "position.json"), flush_every_s=flush_every_s
    )


def memory_id(i: int) -> str:
    """The i-th memory's id (from 0): the same in every history, so folds can be compared."""
    return str(uuid.UUID(int=i + 1))


def sequenced(events: Sequence[object], first_event_id: int) -> list[tuple[int, Envelope]]:
    """The events in envelopes of tenant ``t`` with ids counted from ``first_event_id``, numbered
    from 1 as LOG's sequence numbers."""
    envelopes = [
        new_envelope(e, event_id=str(uuid.UUID(int=first_event_id + k)), tenant=TENANT)  # type: ignore[arg-type]
        for k, e in enumerate(events)
    ]
    return [(k + 1, env) for k, env in enumerate(envelopes)]
