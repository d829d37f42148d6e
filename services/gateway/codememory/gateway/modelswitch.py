"""Blue/green embedding models: build the new model's index beside the one serving recall, then switch.

``start(spec)`` (``codememory reembed --model``) loads the model for queries, appends
``EmbeddingModelRequested`` (the embed service then writes that model's vectors for every memory, old
and new) and folds LOG into a new generation that takes only that model's vectors. Recall keeps being
served by the live generation meanwhile. The new index has caught up when it holds at least as many
memories with a vector as the live one (memories stored during the migration get both models'
vectors); then its HNSW is built, the last events are folded under the projection's lock, and the
projection and the query model are swapped together (between two recalls: no downtime, no recall
ever compares a query of one model with vectors of another). The generation is committed as CURRENT
with its model, so a restart and a replay use the new model.

Switching back is another migration whose vectors are already in LOG (the embed service keeps writing
every model it was asked for), so it is a fold without any embedding. A gateway that stops during a
migration abandons it (the new generation is removed at the next start); asking again resumes where
the embed service is.
"""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

import structlog

from codememory.embedding import Embedder, EmbeddingError, ModelSpec, parse_model
from codememory.embedding.migration import model_requested
from codememory.events import EventLog
from codememory.gateway.errors import GatewayError
from codememory.gateway.indexes import IndexGenerations, IndexModel
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection
from codememory.memory.fold import LIVE_STATES
from codememory.projection import LiveProjection
from codememory.projection.fold import fold_records
from codememory.projection.live import READERS_S, log_batches
from codememory.vectorstore import IndexFilter

log = structlog.get_logger(__name__)

POLL_S = 0.5  # how often the new index looks for new vectors while catching up
# Counting the memories with a vector is an exact filtered count over every point of both indexes (the
# engine holds the GIL meanwhile): at 50,000 memories, counting every POLL_S took 71% of the gateway's
# GIL and recall's p50 went from 46 to 109 ms. So the counts take at most 1/COUNT_SHARE of the time.
COUNT_SHARE = 10.0


class MigrationRefused(GatewayError):
    """The migration cannot start now (the model is already active, or a migration or replay runs)."""


@dataclass(frozen=True)
class MigrationState:
    active_model: str
    active_dim: int
    target_model: str = ""
    target_dim: int = 0
    phase: str = "idle"  # idle, loading, building, switching, switched, failed, cancelled
    embedded: int = 0
    target: int = 0
    folded_seq: int = 0
    log_seq: int = 0
    seconds: float = 0.0
    error: str = ""


def embedded_count(projection: MemoryProjection) -> int:
    """Memories (in any state but forgotten) holding a vector of the projection's model."""
    flt = IndexFilter(equals={"model": projection.model}, any_of={"state": list(LIVE_STATES)})
    return projection.index.count(flt)


def count_due(now: float, counted_at: float, took: float) -> bool:
    """Whether to count again: the last counts (``took`` seconds, started at ``counted_at``) were at
    most a ``COUNT_SHARE``th of the time since they started."""
    return now - counted_at >= max(POLL_S, COUNT_SHARE * took)


class ModelSwitch:
    def __init__(
        self,
        live: LiveProjection[MemoryProjection],
        generations: IndexGenerations,
        encoder: SparseEncoder,
        event_log: EventLog,
        load: Callable[[ModelSpec], Embedder],
        swap_embedder: Callable[[Embedder], None],
        *,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self._live = live
        self._generations = generations
        self._encoder = encoder
        self._log = event_log
        self._load = load
        self._swap_embedder = swap_embedder
        self._busy = busy  # a replay is running
        active = generations.active
        self.state = MigrationState(active.model_id, active.dim)
        self._task: asyncio.Task[None] | None = None
        self._started = 0.0

    @staticmethod
    def discard_abandoned(generations: IndexGenerations) -> None:
        """At start: remove generations a stopped migration (or replay) left beside the current one."""
        current = generations.current()
        for directory in generations.root.glob("gen-*"):
            if directory.name[4:].isdigit() and int(directory.name[4:]) > current:
                shutil.rmtree(directory, ignore_errors=True)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self, spec_text: str) -> MigrationState:
        try:
            spec = parse_model(spec_text)
        except EmbeddingError as exc:
            raise MigrationRefused(str(exc)) from exc
        if self.running:
            raise MigrationRefused(f"a migration to {self.state.target_model} is running")
        if self._busy():
            raise MigrationRefused("a replay is running: ask again when it is done")
        if spec.model_id == self._generations.active.model_id:
            raise MigrationRefused(f"{spec.model_id} already serves recall")
        self._started = time.perf_counter()
        active = self._generations.active
        self.state = MigrationState(active.model_id, active.dim, spec.model_id, phase="loading")
        self._task = asyncio.create_task(self._run(spec), name=f"migrate-{spec.model_id}")
        return self.state

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def cancel(self) -> MigrationState:
        """Stop a migration that has not switched (a switch under way is not interrupted)."""
        if not self.running:
            raise MigrationRefused("no migration is running")
        if self.state.phase == "switching":
            raise MigrationRefused("the migration is switching: it cannot be cancelled now")
        await self.stop()
        self._update(phase="cancelled")
        return self.state

    def _update(self, **changes: object) -> None:
        self.state = replace(self.state, seconds=time.perf_counter() - self._started, **changes)  # type: ignore[arg-type]

    async def _run(self, spec: ModelSpec) -> None:
        generation = 0
        fresh: MemoryProjection | None = None
        try:
            embedder = await asyncio.to_thread(self._load, spec)
            model = IndexModel(embedder.model_id, embedder.dim, spec.spec)
            await self._log.append([model_requested(spec, nonce=str(uuid.uuid4()))])
            generation = self._generations.next_free()
            fresh = await asyncio.to_thread(self._generations.projection, generation, self._encoder, model)
            self._update(phase="building", target_dim=embedder.dim)
            await self._catch_up(fresh)
            self._update(phase="switching")
            await asyncio.to_thread(fresh.index.optimize)
            old_generation = self._generations.current()
            async with self._live.lock:
                tail = [
                    r
                    async for r in self._log.read(
                        fresh.last_seq + 1, until_seq=max(self._live.seq, fresh.last_seq)
                    )
                ]
                await asyncio.to_thread(fold_records, fresh, tail, name="memory-migration")
                fresh.save_position(self._live.seq)
                old = await self._live.swap(fresh)
                self._swap_embedder(embedder)  # with the swap, before any other recall runs
                self._generations.active = model
                self._generations.commit(generation)
            generation, fresh = 0, None
            self._update(phase="switched", active_model=model.model_id, active_dim=model.dim)
            log.info("model_switched", model=model.model_id, seconds=round(self.state.seconds, 2))
            await self._live.released(old, READERS_S)
            old.index.close()
            shutil.rmtree(self._generations.root / f"gen-{old_generation}", ignore_errors=True)
        except asyncio.CancelledError:
            self._discard(generation, fresh)
            raise
        except Exception as exc:
            log.exception("migration_failed", model=spec.model_id)
            self._update(phase="failed", error=f"{type(exc).__name__}: {exc}")
            self._discard(generation, fresh)

    async def _catch_up(self, fresh: MemoryProjection) -> None:
        """Fold LOG into ``fresh`` until it holds as many memories with a vector as the live index.

        LOG is folded every ``POLL_S``; the two counts that decide it has caught up run when the last
        ones are at most a ``COUNT_SHARE``th of the time since (``count_due``)."""
        counted_at, took = -float("inf"), 0.0
        while True:
            until = await self._log.last_seq()
            async for records in log_batches(self._log, fresh.last_seq + 1, until, 2000):
                await asyncio.to_thread(fold_records, fresh, records, name="memory-migration")
                self._update(folded_seq=fresh.last_seq, log_seq=until)
            fresh.save_position(until)
            if count_due(time.monotonic(), counted_at, took):
                counted_at = time.monotonic()
                embedded = await asyncio.to_thread(embedded_count, fresh)
                target = await asyncio.to_thread(embedded_count, self._live.projection)
                took = time.monotonic() - counted_at
                self._update(embedded=embedded, target=target, folded_seq=fresh.last_seq, log_seq=until)
                if embedded >= target:
                    return
            await asyncio.sleep(POLL_S)

    def _discard(self, generation: int, fresh: MemoryProjection | None) -> None:
        if fresh is not None:
            fresh.index.close()
        if generation:
            shutil.rmtree(self._generations.root / f"gen-{generation}", ignore_errors=True)
