"""Changed points written in parts (a vector and a few values) end as whole writes leave them, on a
real Qdrant Edge shard; a crash between the vector and the values folds the event again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import projectionkit as kit  # type: ignore[import-not-found]
import pytest

from codememory.events import (
    Envelope,
    MemoriesMerged,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
)
from codememory.memory import MemoryProjection
from codememory.memory import projection as projection_module
from codememory.memory.draft import text_digest
from codememory.memory.fold import PointState
from codememory.memory.parts import changed_values
from codememory.vectorstore import IndexFilter, PayloadCachedIndex, index_digest


def _history(n: int) -> list[tuple[int, Envelope]]:
    """Stores first, then their vectors and other changes, so the changes find the points written."""
    texts = {i: f"note {i}: parseConfig {i % 5}" for i in range(n)}
    events: list[object] = []
    for i in range(n):
        scope = MemoryScope(session_id=f"s{i % 3}", repo="r")
        events.append(MemoryStored(memory_id=kit.memory_id(i), text=texts[i], scope=scope, importance=1))
    for i in range(n):
        mid = kit.memory_id(i)
        if i % 7 == 3:
            texts[i] = f"refined {i}"
            events.append(MemoryRefined(memory_id=mid, text=texts[i]))
        vector = (float(i % 4), 1.0, 0.5, float(i % 3))
        events.append(
            MemoryEmbedded(memory_id=mid, model="m", text_digest=text_digest(texts[i]), vector=vector)
        )
        if i % 5 == 2:
            events.append(MemoryDeprecated(memory_id=mid, reason="old"))
        if i % 11 == 4:
            events.append(MemoryForgotten(memory_id=mid))
    events.append(MemoriesMerged(canonical_id=kit.memory_id(0), merged_ids=(kit.memory_id(1),)))
    return kit.sequenced(events, 70_000)


class Counting(PayloadCachedIndex):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.upserted = self.dense = self.values = 0
        self.fail_values = False

    def upsert(self, points: Any) -> None:
        self.upserted += len(points)
        super().upsert(points)

    def set_dense(self, point_id: str, dense: Any) -> None:
        self.dense += 1
        super().set_dense(point_id, dense)

    def set_payload(self, point_id: str, payload: Any) -> None:
        if self.fail_values:
            raise RuntimeError("crashed between the vector and the values")
        self.values += 1
        super().set_payload(point_id, payload)


def _fold(path: Path, history: list[tuple[int, Envelope]], batch: int) -> MemoryProjection:
    projection = kit.projection(path, flush_every_s=0.0, wrap=lambda shard: Counting(shard, 1000))
    for start in range(0, len(history), batch):
        projection.apply_batch(history[start : start + batch])
    return projection


def test_parts_end_as_whole_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history = _history(40)
    for batch in (1, 9):
        parts = _fold(tmp_path / f"parts{batch}", history, batch)
        with monkeypatch.context() as m:
            m.setattr(projection_module, "split_parts", lambda final, read: (list(final), []))
            whole = _fold(tmp_path / f"whole{batch}", history, batch)
        everything = IndexFilter()
        assert index_digest(parts.index, everything) == index_digest(whole.index, everything)
        written, written_whole = parts.index, whole.index
        assert isinstance(written, Counting) and isinstance(written_whole, Counting)
        assert written.dense >= 25 and written.values >= 25  # the vectors went in parts
        assert written.upserted < written_whole.upserted - 25
        assert parts.index.count(IndexFilter(equals={"state": "deprecated"})) > 0
        parts.index.close()
        whole.index.close()


def test_a_crash_between_vector_and_values_folds_the_event_again(tmp_path: Path) -> None:
    history = _history(12)
    stores = 12
    clean = _fold(tmp_path / "clean", history, 100)
    crashed = _fold(tmp_path / "crashed", history[:stores], 100)
    index = crashed.index
    assert isinstance(index, Counting)
    index.fail_values = True
    with pytest.raises(RuntimeError):
        crashed.apply_batch(history[stores:])
    assert index.dense > 0  # the vectors were written, their values not
    index.fail_values = False
    crashed.apply_batch(history[stores:])  # the position was not saved: folded again
    everything = IndexFilter()
    assert index_digest(crashed.index, everything) == index_digest(clean.index, everything)
    assert clean.index.count(IndexFilter(equals={"model": "m"})) > 0
    clean.index.close()
    crashed.index.close()


def test_a_removed_key_or_a_new_sparse_vector_is_written_whole() -> None:
    before = PointState({"a": 1, "b": "x"}, (1.0,), None)
    assert changed_values(before, PointState({"a": 1, "b": "y"}, (2.0,), None)) == {"b": "y"}
    assert changed_values(before, PointState({"a": 1}, (1.0,), None)) is None
    assert changed_values(before, PointState({"a": 1.0, "b": "x"}, (1.0,), None)) == {"a": 1.0}
    many = {"a": 1, "b": "x", **{f"k{i}": i for i in range(5)}}
    assert changed_values(before, PointState(many, (1.0,), None)) is None
    sparse_before = PointState({"a": 1}, None, object())  # type: ignore[arg-type]
    assert changed_values(sparse_before, PointState({"a": 2}, None, object())) is None  # type: ignore[arg-type]
