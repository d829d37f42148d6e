"""The gateway assembled: projection follower, gRPC server, and the hooks' context responder.

Used by ``main.py`` (the gateway as its own process) and by ``codememory up`` (every service in one
process). Owns the lifecycle; holds no domain logic.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time

import structlog
from nats.aio.client import Client
from nats.aio.subscription import Subscription
from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog, follow
from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex, open_code_index
from codememory.embedding import Embedder
from codememory.gateway.codecore import CodeCore
from codememory.gateway.codelive import CodeLive, CodeProjection
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.core import GatewayCore, rebuild
from codememory.gateway.indexes import IndexGenerations
from codememory.gateway.live import LiveProjection
from codememory.gateway.responder import serve_context_requests
from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.server import create_server, mark_serving
from codememory.gateway.settings import GatewaySettings
from codememory.gateway.status import StatusSource
from codememory.lexical import SparseEncoder
from codememory.redaction import clean_text
from codememory.v1 import memory_pb2 as pb
from codememory.vectorstore import IndexFilter, index_digest

log = structlog.get_logger(__name__)


class GatewayApp:
    def __init__(
        self, nc: Client, js: JetStreamContext, settings: GatewaySettings, embedder: Embedder
    ) -> None:
        self.settings = settings
        self._nc = nc
        self._js = js
        self.event_log = JetStreamEventLog(js)
        self.encoder = SparseEncoder()
        self.generations = IndexGenerations(
            settings.data_dir, embedder.dim, settings.qdrant_url, payload_cache=settings.payload_cache
        )
        self.live = LiveProjection(self.generations.projection(self.generations.current(), self.encoder))
        self.core = GatewayCore(
            self.live,
            self.event_log,
            embedder,
            self.encoder,
            weights=settings.weights,
            write_wait_s=settings.write_wait_ms / 1000,
            clean_text=clean_text,
        )
        self._dense_size = embedder.dim
        self.code_live = CodeLive(self._code_projection(0))
        self.code = CodeCore(
            self.code_live,
            self.event_log,
            embedder,
            clean_text=clean_text,
            write_wait_s=max(30.0, settings.write_wait_ms / 1000),
        )
        self.status = StatusSource(js, self.core)
        self.port = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._responder: Subscription | None = None
        self._replaying = asyncio.Lock()

    async def start(self) -> GatewayApp:
        servicer = MemoryServicer(self.core, self.settings.tokens, self.status, self.replay, self.code.rank)
        code_servicer = CodeServicer(self.code, self.settings.tokens)
        try:
            self._server, self.port, self._health = await create_server(
                servicer, code_servicer, self.settings.listen, reflection_enabled=self.settings.reflection
            )
        except RuntimeError:
            self.live.projection.index.close()  # release the shard so a retry on another port can open it
            raise
        await self._server.start()
        self._tasks.append(asyncio.create_task(self._follow(), name="gateway-follow"))
        self._tasks.append(asyncio.create_task(self._follow_code(), name="gateway-follow-code"))
        self._tasks.append(asyncio.create_task(self._refresh_centrality(), name="gateway-centrality"))
        self._tasks.append(asyncio.create_task(self._become_ready(), name="gateway-ready"))
        self._tasks.append(asyncio.create_task(self._optimize(), name="gateway-optimize"))
        self._responder = await serve_context_requests(
            self._nc, self.core, default_budget=self.settings.context_budget_tokens
        )
        log.info("gateway_started", port=self.port, projection_seq=self.live.seq)
        return self

    async def _follow(self) -> None:
        while True:
            try:
                async for records in follow(self._js, self.live.seq + 1):
                    await self.live.apply(records)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("follow_failed")
                await asyncio.sleep(0.5)

    def _code_projection(self, generation: int) -> CodeProjection:
        """A fresh code projection: graphs in memory, the code-search shard rebuilt beside them from LOG."""
        directory = self.settings.data_dir / f"code-{generation}"
        shutil.rmtree(directory, ignore_errors=True)
        shard = open_code_index(directory, self._dense_size)
        return CodeProjection(
            TenantGraphs(), CodeIndex(shard, encoder=self.encoder), shard=shard, generation=generation
        )

    async def _follow_code(self) -> None:
        while True:
            try:
                async for records in follow(self._js, self.code_live.seq + 1):
                    await self.code_live.apply(records)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("follow_code_failed")
                await asyncio.sleep(0.5)

    async def _refresh_centrality(self) -> None:
        """Off the query path: PageRank and betweenness recomputed in a worker thread when a graph moved."""
        while True:
            await asyncio.sleep(self.settings.centrality_every_s)
            try:
                refreshed = await asyncio.to_thread(self.code.refresh_centrality)
                if refreshed:
                    log.info("centrality_refreshed", graphs=refreshed)
            except Exception:
                log.exception("centrality_failed")

    async def _optimize(self) -> None:
        """Off the query path: Qdrant Edge builds HNSW only when asked; ask every few thousand events."""
        while True:
            await asyncio.sleep(self.settings.optimize_every_s)
            try:
                if await self.live.optimize(self.settings.optimize_after_events):
                    log.info("index_optimized", projection_seq=self.live.seq)
            except Exception:
                log.exception("optimize_failed")

    async def _become_ready(self) -> None:
        target = await self.status.log_last_seq()
        while not await self.live.wait_for(target, 1.0):
            pass
        while not await self.code_live.wait_for(target, 1.0):
            pass
        await mark_serving(self._health)
        log.info("gateway_serving", projection_seq=self.live.seq)

    async def replay(self) -> pb.ReplayResponse:
        """Rebuild the projection from LOG into a new generation (no re-embedding) and swap it in."""
        async with self._replaying:
            everything = IndexFilter()
            before = await asyncio.to_thread(index_digest, self.live.projection.index, everything)
            old_generation = self.generations.current()
            generation = old_generation + 1
            shutil.rmtree(self.generations.root / f"gen-{generation}", ignore_errors=True)
            fresh = self.generations.projection(generation, self.encoder)
            started = time.perf_counter()
            events = (await rebuild(self.event_log, self.live, fresh)).events
            self.generations.commit(generation)
            shutil.rmtree(self.generations.root / f"gen-{old_generation}", ignore_errors=True)
            after = await asyncio.to_thread(index_digest, self.live.projection.index, everything)
            graph_before = await asyncio.to_thread(self.code_live.digest)
            old_code = await self.code_live.rebuild(
                self.event_log, self._code_projection(self.code_live.projection.generation + 1)
            )
            graph_after = await asyncio.to_thread(self.code_live.digest)
            await asyncio.sleep(1.0)  # searches that started on the old code shard finish first
            old_code.shard.close()
            shutil.rmtree(self.settings.data_dir / f"code-{old_code.generation}", ignore_errors=True)
            seconds = time.perf_counter() - started
            log.info("replayed", events=events, seconds=round(seconds, 3), same=before == after)
            return pb.ReplayResponse(
                events=events,
                seconds=seconds,
                digest_before=before,
                digest_after=after,
                graph_digest_before=graph_before,
                graph_digest_after=graph_after,
            )

    async def stop(self) -> None:
        log.info("gateway_stopping")
        if self._responder is not None:
            with contextlib.suppress(Exception):
                await self._responder.unsubscribe()
        await self._health.enter_graceful_shutdown()
        await self._server.stop(grace=2.0)
        for task in self._tasks:
            task.cancel()
        await asyncio.wait(self._tasks, timeout=5)
        log.info("gateway_tasks_stopped")
        async with self.live.lock:
            self.live.projection.index.flush()
            self.live.projection.index.close()
        async with self.code_live.lock:
            self.code_live.projection.shard.close()
