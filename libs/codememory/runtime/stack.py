"""``codememory up``: the embedded stack, every service in one process around a local nats-server.

This is the one composition root that imports the services: ingest, embed and graph consumers and the
gateway (projection, gRPC, context responder) share one event loop, one NATS connection and one model.
In production the same pieces run as separate deployments (docker-compose.yml, k8s/).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import nats
import structlog

from codememory.bus import ensure_streams
from codememory.embed.main import create_embed
from codememory.embed.settings import EmbedSettings
from codememory.embedding import MiniLmEmbedder, load_default_embedder, query_embedder
from codememory.gateway.app import GatewayApp
from codememory.gateway.settings import GatewaySettings
from codememory.graph.main import create_graph
from codememory.graph.settings import GraphSettings
from codememory.hookclient import HookSettings, flush_spool
from codememory.ingest.main import create_ingest
from codememory.ingest.settings import IngestSettings
from codememory.logs import configure_logging
from codememory.runtime.home import Runtime, clear_runtime, local_token, write_runtime
from codememory.runtime.natsd import NatsServer, nats_server_from_env
from codememory.settings import default_home, env_int, env_str

log = structlog.get_logger(__name__)


@dataclass(frozen=True, kw_only=True)
class StackSettings:
    home: Path
    nats_url: str = ""
    nats_port: int = 0
    grpc_listen: str = "127.0.0.1:50051"
    tenant: str = "local"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StackSettings:
        return cls(
            home=default_home(environ),
            nats_url=env_str("up", "nats_url", "", environ),
            nats_port=env_int("up", "nats_port", 0, environ),
            grpc_listen=env_str("up", "grpc_listen", "127.0.0.1:50051", environ),
            tenant=env_str("up", "tenant", "local", environ),
        )


async def run_stack(settings: StackSettings) -> None:
    configure_logging("up")
    home = settings.home
    home.mkdir(parents=True, exist_ok=True)
    server: NatsServer | None = None
    nats_url = settings.nats_url
    if not nats_url:
        server = nats_server_from_env(home / "nats", settings.nats_port).start()
        nats_url = server.url
    try:
        await _run(settings, nats_url)
    finally:
        clear_runtime(home)
        if server is not None:
            server.stop()


async def _run(settings: StackSettings, nats_url: str) -> None:
    home = settings.home
    nc = await nats.connect(nats_url, name="codememory-up", max_reconnect_attempts=-1)
    js = nc.jetstream()
    await ensure_streams(js)
    configured = GatewaySettings.from_env()
    embedder = await asyncio.to_thread(
        lambda: query_embedder(
            load_default_embedder(),
            configured.query_runtime,
            configured.model_cache,
            threads=configured.query_threads,
        )
    )
    gateway_settings = replace(
        configured,
        nats_url=nats_url,
        data_dir=home / "gateway",
        tokens={**configured.tokens, local_token(home): settings.tenant},
    )
    try:
        gateway = await GatewayApp(
            nc, js, replace(gateway_settings, listen=settings.grpc_listen), embedder
        ).start()
    except RuntimeError:  # the preferred port is taken: any free one, recorded in runtime.json
        gateway = await GatewayApp(nc, js, replace(gateway_settings, listen="127.0.0.1:0"), embedder).start()
    runners = [
        create_ingest(js, IngestSettings.from_env()),
        # its own model instance: a batch being embedded never holds the lock a query waits on
        create_embed(js, EmbedSettings.from_env(), await asyncio.to_thread(MiniLmEmbedder)),
        create_graph(js, GraphSettings.from_env()),
    ]
    tasks = [asyncio.create_task(r.run(), name=f"consumer-{i}") for i, r in enumerate(runners)]
    hook_settings = HookSettings.from_env().replace(home=str(home), nats_url=nats_url, tenant=settings.tenant)
    flushed = await asyncio.to_thread(flush_spool, hook_settings)
    write_runtime(home, Runtime(nats_url=nats_url, grpc_address=f"127.0.0.1:{gateway.port}", pid=os.getpid()))
    log.info("up", nats_url=nats_url, grpc=f"127.0.0.1:{gateway.port}", home=str(home), spool_flushed=flushed)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping")
    for runner in runners:
        runner.stop()
    await _bounded("consumers", asyncio.gather(*tasks, return_exceptions=True), 10)
    await _bounded("gateway", gateway.stop(), 10)
    await _bounded("nats", nc.close(), 5)
    log.info("stopped")


async def _bounded(what: str, awaitable: Awaitable[object], seconds: float) -> None:
    """Shut one part down within a time limit: a stuck part must not keep the process alive."""
    try:
        await asyncio.wait_for(awaitable, seconds)
    except Exception as exc:  # TimeoutError included: log and go on with the rest
        log.warning("stop_incomplete", part=what, error=f"{type(exc).__name__}: {exc}")
