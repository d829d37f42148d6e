"""Memories with chosen vectors for the consolidation tests: similarity is what the test says it is."""

from __future__ import annotations

import math
import uuid

import numpy as np

from codememory.consolidate.view import Remembered


def unit(*values: float, dim: int = 8) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def at_angle(cosine: float, dim: int = 8) -> np.ndarray:
    """A unit vector whose cosine with ``unit(1)`` is ``cosine``."""
    return unit(cosine, math.sqrt(max(0.0, 1 - cosine * cosine)), dim=dim)


def memory(
    text: str,
    vector: np.ndarray,
    *,
    created_at: float = 1_000_000.0,
    memory_type: str = "decision",
    repo: str = "r",
    session_id: str = "s",
    seq: int = 1,
    **extra: object,
) -> Remembered:
    return Remembered(
        memory_id=str(uuid.uuid4()),
        seq=seq,
        text=text,
        memory_type=memory_type,
        repo=repo,
        session_id=session_id,
        created_at=created_at,
        paths=tuple(extra.pop("paths", ())),  # type: ignore[arg-type]
        importance=float(extra.pop("importance", 0.5)),  # type: ignore[arg-type]
        base_importance=float(extra.pop("base_importance", 0.5)),  # type: ignore[arg-type]
        digest="d",
        vector=vector,
        vector_seq=seq,
        **extra,  # type: ignore[arg-type]
    )


class Log:
    """Builds a tenant's events in order, with vectors chosen by the test (8 dimensions)."""

    def __init__(self, tenant: str = "t") -> None:
        from codememory.events import Envelope

        self.tenant = tenant
        self.records: list[tuple[int, Envelope]] = []
        self.clock = 1_700_000_000.0

    def add(self, event: object, *, at: float | None = None, event_id: str = "") -> str:
        from datetime import UTC, datetime

        from codememory.events import new_envelope

        self.clock = at if at is not None else self.clock + 60
        envelope = new_envelope(
            event,  # type: ignore[arg-type]
            event_id=event_id or str(uuid.uuid4()),
            tenant=self.tenant,
            occurred_at=datetime.fromtimestamp(self.clock, UTC),
        )
        self.records.append((len(self.records) + 1, envelope))
        return envelope.event_id

    def stored(
        self, text: str, vector: np.ndarray, *, kind: str = "decision", session: str = "s", repo: str = "r"
    ) -> str:
        from codememory.events import MemoryEmbedded, MemoryScope, MemoryStored
        from codememory.memory import text_digest

        memory_id = str(uuid.uuid4())
        self.add(
            MemoryStored(
                memory_id=memory_id,
                text=text,
                memory_type=kind,
                scope=MemoryScope(repo=repo, session_id=session),
            )
        )
        self.add(
            MemoryEmbedded(
                memory_id=memory_id,
                model="m",
                text_digest=text_digest(text),
                vector=tuple(float(x) for x in vector),
            )
        )
        return memory_id
