"""The gateway assembled on a connected JetStream context: projections, followers, gRPC, watchdog.

``wiring.py`` starts it once the broker has connected (FastStream's after_startup) and stops it on
shutdown, in its own process or inside ``codememory up``. Owns the lifecycle; holds no domain logic.
The periodic jobs it starts once it serves are ``background.py``'s. The hooks' context responder is
a FastStream subscriber (``responder.py``), not part of this object.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health
from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog
from codememory.bus.follower import Follower
from codememory.codesearch.prepared import PreparedFiles
from codememory.collector import ServingCollector
from codememory.embedding import Embedder
from codememory.gateway.accesses import AccessRecorder
from codememory.gateway.background import BackgroundLoops
from codememory.gateway.browse import BrowseServicer
from codememory.gateway.codecore import CodeCore
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.consolidationrpc import ConsolidationServicer
from codememory.gateway.core import Consolidation, GatewayCore
from codememory.gateway.deadletters import LogDeadLetters
from codememory.gateway.erasure import erasure_servicer
from codememory.gateway.errors import NotReady
from codememory.gateway.givenfold import GivenFromLog
from codememory.gateway.hooksdrain import HooksDrain
from codememory.gateway.indexes import IndexGenerations, code_projection, drop_unscoped_points
from codememory.gateway.logpages import TenantLog
from codememory.gateway.modelsrpc import ModelServicer
from codememory.gateway.modelswitch import ModelSwitch
from codememory.gateway.optimizing import OptimizePolicy
from codememory.gateway.querymodels import memory_query_model, query_model
from codememory.gateway.replay import Replayer
from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.server import create_server, health_server, set_serving
from codememory.gateway.settings import GatewaySettings
from codememory.gateway.status import StatusSource
from codememory.gateway.watchdog import Watchdog
from codememory.lexical import SparseEncoder
from codememory.metrics import TimedEmbedder, track_projections
from codememory.projection import LiveProjection
from codememory.redaction import clean_text
from codememory.v1 import consolidation_pb2_grpc, models_pb2_grpc
from codememory.v1 import memory_pb2 as pb

log = structlog.get_logger(__name__)


def _projections(app: object) -> list[tuple[str, LiveProjection[Any]]]:
    assert isinstance(app, GatewayApp)
    return [(live.name, live) for live in (app.live, app.code_live, app.given_live)]


def _log_last_seq(app: object) -> int:
    assert isinstance(app, GatewayApp)
    return app.watchdog.last_log_seq


class GatewayApp:
    def __init__(
        self,
        js: JetStreamContext,
        settings: GatewaySettings,
        embedder: Embedder,
        consolidation: Consolidation | None = None,
    ) -> None:
        self.settings = settings
        self.event_log = JetStreamEventLog(js)
        self.accesses = AccessRecorder(self.event_log)
        self.encoder = SparseEncoder()
        self.dead_letters = LogDeadLetters(js)
        self.generations = IndexGenerations(
            settings.data_dir,
            embedder.dim,
            settings.qdrant_url,
            payload_cache=settings.payload_cache,
            search=settings.dense_search,
            model_id=embedder.model_id,
            spec=settings.model,
            layout=settings.shard_layout,
        )
        ModelSwitch.discard_abandoned(self.generations)
        self.generations.renew()  # an index keyed by memory id alone is rebuilt from LOG
        memory_embedder = memory_query_model(self.generations, embedder, settings)  # after a migration
        memory = self.generations.projection(self.generations.current(), self.encoder)
        drop_unscoped_points(memory)  # a server collection from before per-tenant ids, folded again
        self.live = LiveProjection(memory, name="memory", poison=self.dead_letters)
        self.optimizing = OptimizePolicy(settings.optimize_after_events)
        self.core = GatewayCore(
            self.live,
            self.event_log,
            memory_embedder,
            self.encoder,
            weights=settings.weights,
            write_wait_s=settings.write_wait_ms / 1000,
            clean_text=clean_text,
            consolidation=consolidation,
            accesses=self.accesses,
        )
        prepared = PreparedFiles(self.encoder)  # RecordCode's intake -> the code projection's fold
        fresh_code = code_projection(settings.data_dir, 0, embedder.dim, self.encoder, prepared)
        self.code_live = LiveProjection(fresh_code, name="code", poison=self.dead_letters)
        self.code = CodeCore(
            self.code_live,
            self.event_log,
            embedder,
            clean_text=clean_text,
            write_wait_s=max(30.0, settings.write_wait_ms / 1000),
            code_weights=settings.code_weights,
            prepared=prepared,
        )
        # what other replicas gave each session as context (``givenfold``), folded into the core's record
        self.given_live = LiveProjection(GivenFromLog(self.core.sessions_given), name="given")
        self.follower = Follower(js, self.live, self.code_live, self.given_live)  # one read of LOG feeds all
        self.followers = self.follower.views()  # the watchdog's view: health per projection
        self.replayer = Replayer(
            self.event_log,
            self.generations,
            self.encoder,
            self.live,
            self.code_live,
            data_dir=settings.data_dir,
            dense_size=embedder.dim,
            indexing_threads=settings.rebuild_indexing_threads,
        )
        self.models = ModelSwitch(
            self.live,
            self.generations,
            self.encoder,
            self.event_log,
            lambda spec: query_model(spec, settings),
            self._set_memory_model,
            busy=lambda: self.replayer.running,
        )
        self._health: health.aio.HealthServicer | None = None
        self._health_server: grpc.aio.Server | None = None  # plain, health only (probes of a TLS API)
        self.watchdog = Watchdog(
            self.followers, self.event_log.last_seq, self._set_serving, stall_after_s=settings.stall_after_s
        )
        # started once the server listens (``collector``), if GC_THAW_S > 0
        self.collector = ServingCollector()
        self.background = BackgroundLoops(
            self.watchdog,
            self.dead_letters,
            self.code,
            self.accesses,
            self.optimizing,
            self.live,
            lambda: self.replayer.running,
            centrality_every_s=settings.centrality_every_s,
            optimize_every_s=settings.optimize_every_s,
            collector=self.collector,
            gc_thaw_s=settings.gc_thaw_s,
        )
        self.status = StatusSource(js, self.core, self.watchdog, lambda: self.replayer.indexing)
        self.browse = BrowseServicer(lambda: self.live.projection.index, TenantLog(js), settings.tokens)
        self.erasure = erasure_servicer(
            self.event_log, self.live.wait_for, lambda: self.live.projection.index, settings, HooksDrain(js)
        )
        self.port = 0

    def _tls(self) -> tuple[bytes, bytes] | None:
        """The key and certificate when gRPC is configured for TLS (read at start, never logged)."""
        if not self.settings.tls_cert:
            return None
        return Path(self.settings.tls_key).read_bytes(), Path(self.settings.tls_cert).read_bytes()

    def _set_memory_model(self, embedder: Embedder) -> None:
        """The model recall embeds queries with (a migration swaps it with the projection)."""
        self.core.embedder = (
            embedder if isinstance(embedder, TimedEmbedder) else TimedEmbedder(embedder, "query")
        )

    async def _set_serving(self, serving: bool) -> None:
        if self._health is not None:
            await set_serving(self._health, serving)

    async def start(self) -> GatewayApp:
        """Bind and serve; raises ``ListenError`` (with every shard released) when the address is taken."""
        servicer = MemoryServicer(
            self.core,
            self.settings.tokens,
            self.status,
            self.replay,
            self.code.rank,
            admin_tokens=self.settings.admin_tokens,
            code_pool=self.settings.code_pool,
            replay_phase=lambda: self.replayer.phase,
            import_workers_after=self.settings.import_workers_after,
        )
        code_servicer = CodeServicer(self.code, self.settings.tokens)
        try:
            self._server, self.port, self._health = await create_server(
                servicer,
                code_servicer,
                self.settings.listen,
                reflection_enabled=self.settings.reflection,
                reuse_port=self.settings.reuse_port,
                browse_servicer=self.browse,
                erasure_servicer=self.erasure,
                tls=self._tls(),
            )
        except Exception:
            await asyncio.to_thread(self._close_indexes)  # so a retry on another port can open them
            raise
        models_pb2_grpc.add_ModelServiceServicer_to_server(
            ModelServicer(self.models, self.settings.tokens, self.settings.admin_tokens), self._server
        )
        consolidation_pb2_grpc.add_ConsolidationServiceServicer_to_server(
            ConsolidationServicer(self.core, self.settings.tokens), self._server
        )
        if self.settings.health_listen and self._health is not None:
            self._health_server, _ = await health_server(self._health, self.settings.health_listen)
            await self._health_server.start()
        await self._server.start()
        if self.settings.gc_thaw_s > 0:
            self.collector.start()  # the startup heap (modules, model, opened shards) is frozen
        try:
            self.follower.start()
            self.background.start()
            track_projections(self, _projections, _log_last_seq)
        except BaseException:
            self.collector.stop()  # a process that goes on without this gateway gets its collector back
            raise
        log.info("gateway_started", port=self.port, projection_seq=self.live.seq)
        return self

    async def replay(self) -> pb.ReplayResponse:
        if self.models.running:
            raise NotReady("a model migration is running (codememory reembed --status): replay after it")
        done = await self.replayer.replay()
        found = self.collector.thaw()  # what the old projections left in frozen cycles (``collector``)
        log.info("heap_walked", unreachable=found, after="replay")
        return pb.ReplayResponse(
            events=done.events,
            seconds=done.seconds,
            digest_before=done.digest_before,
            digest_after=done.digest_after,
            graph_digest_before=done.graph_digest_before,
            graph_digest_after=done.graph_digest_after,
            fold_seconds=done.fold_seconds,
            index_seconds=done.index_seconds,
        )

    async def stop(self) -> None:
        try:
            await self._stop()
        finally:
            self.collector.stop()

    async def _stop(self) -> None:
        log.info("gateway_stopping")
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        await self._server.stop(grace=2.0)
        if self._health_server is not None:
            await self._health_server.stop(grace=None)
        await self.models.stop()
        await self.replayer.stop()
        left = await self.background.stop()
        await self.follower.stop()
        try:
            await asyncio.wait_for(self.accesses.flush(), 2.0)
        except Exception as exc:  # LOG gone at shutdown: those accesses are not recorded
            log.warning("accesses_not_flushed", error=repr(exc))
        log.info("gateway_tasks_stopped", left=left)
        async with self.live.lock, self.code_live.lock:
            await asyncio.to_thread(self._flush_and_close)

    def _flush_and_close(self) -> None:
        self.live.projection.sync()  # flushes and saves the position: a restart folds nothing again
        self._close_indexes()

    def _close_indexes(self) -> None:
        self.live.projection.index.close()
        self.code_live.projection.shard.close()
