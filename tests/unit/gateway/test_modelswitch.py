"""The blue/green model switch on real Qdrant Edge shards and an in-memory LOG.

Two stand-in models of different widths (8 and 16): the live index takes only its model's vectors (the
other model's never reach it, whatever their width), the new index is built beside it and swapped in
only once it holds a vector for every memory the live one does, together with the query model; the
generation is recorded with its model, so a restart opens it with that model again.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from codememory.embedding import Embedder
from codememory.events import InMemoryEventLog, MemoryEmbedded, MemoryStored, new_envelope
from codememory.gateway import modelswitch
from codememory.gateway.indexes import IndexGenerations, IndexModel
from codememory.gateway.modelswitch import COUNT_SHARE, POLL_S, MigrationRefused, ModelSwitch, count_due
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, point_ids, text_digest
from codememory.projection import LiveProjection
from codememory.projection.live import poll

TEXTS = [f"memory {i} about topic {i % 3}" for i in range(5)]


class Hashing:
    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        out = []
        for text in texts:
            raw = [
                math.sin(int(hashlib.md5(f"{text}{i}".encode()).hexdigest(), 16) % 1000)
                for i in range(self.dim)
            ]
            norm = math.sqrt(sum(x * x for x in raw))
            out.append(tuple(x / norm for x in raw))
        return out


A, B = Hashing("local/a", 8), Hashing("local/b", 16)


async def _embedded(log: InMemoryEventLog, model: Hashing, ids: list[str], texts: list[str]) -> None:
    vectors = model.embed(texts)
    await log.append(
        [
            new_envelope(
                MemoryEmbedded(memory_id=m, model=model.model_id, text_digest=text_digest(t), vector=v),
                event_id=str(uuid.uuid4()),
                tenant="t",
            )
            for m, t, v in zip(ids, texts, vectors, strict=True)
        ]
    )


async def _until(check: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_the_new_index_is_swapped_in_once_every_memory_has_its_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modelswitch, "READERS_S", 0.0)
    monkeypatch.setattr(modelswitch, "POLL_S", 0.05)
    log, encoder = InMemoryEventLog(), SparseEncoder()
    generations = IndexGenerations(tmp_path, A.dim, model_id=A.model_id, spec="local:/m/a")
    live: LiveProjection[MemoryProjection] = LiveProjection(
        generations.projection(generations.current(), encoder)
    )
    ids = [str(uuid.UUID(int=i + 1)) for i in range(len(TEXTS))]
    await log.append(
        [
            new_envelope(MemoryStored(memory_id=m, text=t), event_id=m, tenant="t")
            for m, t in zip(ids, TEXTS, strict=True)
        ]
    )
    await _embedded(log, A, ids, TEXTS)
    follower = asyncio.create_task(poll(log, live))
    swapped: list[Embedder] = []
    loaded: list[str] = []
    switch = ModelSwitch(
        live, generations, encoder, log, lambda spec: loaded.append(spec.spec) or B, swapped.append
    )
    try:
        with pytest.raises(MigrationRefused, match="already serves recall"):
            await switch.start("local:/m/a")
        await switch.start("local:/m/b")
        with pytest.raises(MigrationRefused, match="is running"):
            await switch.start("local:/m/b")
        await _until(lambda: switch.state.phase == "building" and switch.state.target == 5)
        await _embedded(log, B, ids[:3], TEXTS[:3])  # the embed service's backfill, part way
        await _until(lambda: switch.state.embedded == 3)
        last = await log.last_seq()
        await _until(lambda: live.seq == last)  # the follower polls: on a busy machine it may lag
        await asyncio.sleep(0.3)  # and then nothing swaps while a vector is missing
        assert switch.state.phase == "building" and live.projection.model == A.model_id and not swapped
        # the live index followed LOG through b's 16-wide vectors and kept its own 8-wide ones
        assert live.seq == last and live.poisoned == 0
        points = live.projection.index.get(point_ids("t", ids), with_vectors=True)
        assert [len(p.dense or ()) for p in points] == [8] * 5
        await _embedded(log, B, ids[3:], TEXTS[3:])
        await _until(lambda: switch.state.phase == "switched")
    finally:
        follower.cancel()
        await switch.stop()
    assert loaded == ["local:/m/b"] and swapped == [B]
    assert live.projection.model == B.model_id and generations.current() == 2
    assert generations.active == IndexModel(B.model_id, B.dim, "local:/m/b")
    points = live.projection.index.get(point_ids("t", ids), with_vectors=True)
    assert [len(p.dense or ()) for p in points] == [16] * 5
    assert (switch.state.active_model, switch.state.active_dim) == (B.model_id, 16)
    await _until(lambda: not (tmp_path / "memories" / "gen-1").exists())
    live.projection.index.close()
    # a restart opens generation 2 with model b, whatever is configured
    again = IndexGenerations(tmp_path, A.dim, model_id=A.model_id, spec="local:/m/a")
    assert again.active == IndexModel(B.model_id, B.dim, "local:/m/b")
    rebuilt = again.projection(again.next_free(), encoder)  # what replay folds into: the active model's
    assert rebuilt.model == B.model_id and again.model_of(3) == again.active
    rebuilt.index.close()


async def test_a_model_that_cannot_load_fails_the_migration_and_leaves_recall_alone(tmp_path: Path) -> None:
    log, encoder = InMemoryEventLog(), SparseEncoder()
    generations = IndexGenerations(tmp_path, A.dim, model_id=A.model_id)
    live: LiveProjection[MemoryProjection] = LiveProjection(generations.projection(1, encoder))

    def broken(spec: object) -> Embedder:
        raise RuntimeError("no such model here")

    switch = ModelSwitch(live, generations, encoder, log, broken, lambda e: None)
    with pytest.raises(MigrationRefused, match="unknown embedding model"):
        await switch.start("bert")
    await switch.start("local:/m/b")
    await _until(lambda: switch.state.phase == "failed")
    assert "no such model here" in switch.state.error and live.projection.model == A.model_id
    assert [p.name for p in (tmp_path / "memories").glob("gen-*")] == ["gen-1"]
    memory = str(uuid.UUID(int=7))
    await log.append(
        [new_envelope(MemoryStored(memory_id=memory, text=TEXTS[0]), event_id=memory, tenant="t")]
    )
    await _embedded(log, A, [memory], TEXTS[:1])
    await live.apply([r async for r in log.read(1)])
    waiting = ModelSwitch(live, generations, encoder, log, lambda spec: B, lambda e: None)
    with pytest.raises(MigrationRefused, match="no migration is running"):
        await waiting.cancel()
    await waiting.start("local:/m/b")  # no embed service here: it would wait for b's vectors forever
    await _until(lambda: waiting.state.phase == "building" and waiting.state.target == 1)
    assert (await waiting.cancel()).phase == "cancelled" and not waiting.running
    assert [p.name for p in (tmp_path / "memories").glob("gen-*")] == ["gen-1"]
    busy = ModelSwitch(live, generations, encoder, log, broken, lambda e: None, busy=lambda: True)
    with pytest.raises(MigrationRefused, match="replay"):
        await busy.start("local:/m/b")
    live.projection.index.close()


def test_counting_takes_at_most_its_share_of_the_time() -> None:
    """The catch-up's counts are exact scans of both indexes: slow counts are made less often."""
    assert count_due(now=100.0, counted_at=-float("inf"), took=0.0)  # the first count is due at once
    assert not count_due(now=100.2, counted_at=100.0, took=0.001)  # never more often than POLL_S
    assert count_due(now=100.0 + POLL_S, counted_at=100.0, took=0.001)
    assert not count_due(now=101.0, counted_at=100.0, took=0.3)  # 0.3 s counts: every 3 s at most
    assert count_due(now=100.0 + 0.3 * COUNT_SHARE, counted_at=100.0, took=0.3)
