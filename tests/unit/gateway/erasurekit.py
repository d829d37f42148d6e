"""What the Erase tests share (beside the ``sealer`` fixture of tests/conftest.py): the memory index as
Erase reads it, and a projection that has always applied what was appended."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codememory.memory import point_id
from codememory.vectorstore import IndexFilter, StoredPoint


class Points:
    """The two reads Erase makes of the memory index, over a list of payloads."""

    def __init__(self, payloads: list[dict[str, Any]]) -> None:
        self.payloads = payloads

    def get(self, ids: list[str], with_vectors: bool = False) -> list[StoredPoint]:
        points = [StoredPoint(id=point_id(p["tenant"], p["memory_id"]), payload=p) for p in self.payloads]
        return [p for p in points if p.id in ids]  # a point is named by tenant and memory id

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        sessions = flt.any_of["session_id"]
        for p in self.payloads:
            if p["tenant"] == flt.equals["tenant"] and p["session_id"] in sessions:
                yield StoredPoint(id=p["memory_id"], payload=p)


async def applied(seq: int, timeout: float) -> bool:
    """The projection's wait for a sequence: here everything appended counts as applied."""
    return True
