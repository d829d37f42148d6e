"""A bulk import's fold: new points written with their batch's shared values set once (``upsert_new``)
end as one-at-a-time folding leaves them; a point left half-written is written again; flushes follow
``flush_every_s`` and the saved position never passes what was flushed."""

from __future__ import annotations

import time
from pathlib import Path

import projectionkit as kit  # type: ignore[import-not-found]

from codememory.events import Envelope, MemoryForgotten, MemoryRefined, MemoryScope, MemoryStored
from codememory.memory import MemoryProjection, Position, point_id
from codememory.memory.projection import FLUSH_GAPS
from codememory.vectorstore import IndexFilter, IndexPoint, PayloadCachedIndex, index_digest
from codememory.vectorstore.shared import split_hidden


class CountingFlushes(PayloadCachedIndex):
    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def _projection(path: Path, flush_every_s: float = 0.0) -> MemoryProjection:
    return kit.projection(path, flush_every_s=flush_every_s, wrap=lambda shard: CountingFlushes(shard, 1000))


def _imported(n: int) -> list[tuple[int, Envelope]]:
    events: list[object] = []
    for i in range(n):
        mid = kit.memory_id(i)
        scope = MemoryScope(session_id=f"s{i % 4}", repo="r", user="" if i % 3 else "ann")
        events.append(
            MemoryStored(memory_id=mid, text=f"note {i}: parseConfig {i % 7}", scope=scope, tags=("x",))
        )
        if i % 9 == 4:
            events.append(MemoryRefined(memory_id=mid, text=f"refined {i}"))
        if i % 13 == 6:
            events.append(MemoryForgotten(memory_id=mid))
    return kit.sequenced(events, 50_000)


def test_a_bulk_batch_ends_as_one_event_at_a_time(tmp_path: Path) -> None:
    history = _imported(100)
    one = _projection(tmp_path / "one")
    for seq_env in history:
        one.apply_batch([seq_env])
    bulk = _projection(tmp_path / "bulk")
    for start in range(0, len(history), 60):
        bulk.apply_batch(history[start : start + 60])
    everything = IndexFilter()
    assert index_digest(bulk.index, everything) == index_digest(one.index, everything)
    assert bulk.index.count(IndexFilter(equals={"tenant": "t", "state": "active"})) > 80
    one.index.close()
    bulk.index.close()


def test_a_point_left_half_written_is_taken_for_absent_and_written_whole(tmp_path: Path) -> None:
    history = _imported(20)
    clean = _projection(tmp_path / "clean")
    clean.apply_batch(history)
    crashed = _projection(tmp_path / "crashed")
    stored = clean.index.get([point_id("t", kit.memory_id(i)) for i in range(20)], with_vectors=True)
    points = [IndexPoint(id=p.id, payload=p.payload, sparse=p.sparse) for p in stored]
    own, _ = split_hidden(points, "tenant", min_shared=2)
    crashed.index.upsert(own)  # the first of upsert_new's two updates, then a crash
    assert crashed.index.count(IndexFilter(equals={"tenant": "t"})) == 0
    crashed.apply_batch(history)  # the position was never saved: folded again
    everything = IndexFilter()
    assert index_digest(crashed.index, everything) == index_digest(clean.index, everything)
    clean.index.close()
    crashed.index.close()


def test_flushes_follow_the_interval_and_the_saved_position_never_passes_them(tmp_path: Path) -> None:
    history = _imported(30)
    projection = _projection(tmp_path, flush_every_s=3600.0)
    index = projection.index
    assert isinstance(index, CountingFlushes)
    projection.apply_batch(history[:10])  # the first batch is flushed
    first = projection.last_seq
    assert index.flushes == 1 and Position(tmp_path / "position.json").seq == first
    projection.apply_batch(history[10:20])  # within the interval: applied and readable, not flushed
    assert projection.last_seq > first and index.flushes == 1
    assert Position(tmp_path / "position.json").seq == first
    projection.skip(projection.last_seq + 1)  # a position saved past unflushed events: flushed first
    assert index.flushes == 2 and Position(tmp_path / "position.json").seq == projection.last_seq
    projection.apply_batch(history[20:])
    projection.sync()
    assert index.flushes == 3 and Position(tmp_path / "position.json").seq == projection.last_seq
    index.close()


def test_a_slow_flush_spaces_the_next_ones_out(tmp_path: Path) -> None:
    """A flush that grows with the shard may take no more than a tenth of a busy fold's time."""

    class SlowFlushes(CountingFlushes):
        took = 0.0

        def flush(self) -> None:
            started = time.monotonic()
            time.sleep(0.05)
            super().flush()
            self.took = time.monotonic() - started

    projection = kit.projection(tmp_path, flush_every_s=0.01, wrap=lambda shard: SlowFlushes(shard, 1000))
    index = projection.index
    assert isinstance(index, SlowFlushes)
    history = _imported(30)
    projection.apply_batch(history[:10])
    time.sleep(0.05)  # past flush_every_s, not past FLUSH_GAPS times the 0.05 s flush
    projection.apply_batch(history[10:20])
    assert index.flushes == 1
    time.sleep(FLUSH_GAPS * index.took + 0.05)
    projection.apply_batch(history[20:])
    assert index.flushes == 2 and Position(tmp_path / "position.json").seq == projection.last_seq
    index.close()
