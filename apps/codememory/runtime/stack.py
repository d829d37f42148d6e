"""``codememory up``: the embedded stack around a local nats-server, in one process or supervised.

Without ``--scale`` every service runs in this one process on one FastStream broker (the ingest, embed
and graph routers and the gateway's), sharing one event loop: it starts fastest (one interpreter, one
import of torch; 8.6 s to runtime.json against 10.7 s supervised, one run each on 2 cores). With
``--scale svc=N`` (``cluster.py``) every replica of every service is its own OS process under a
supervisor that restarts what dies. This is the one composition root that imports the services; in
production the same ``create_app`` factories run as separate deployments (docker-compose.yml, k8s/).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import structlog

from codememory.bus.app import service_app, service_broker
from codememory.bus.auth import BusCredentials
from codememory.bus.durable import DurableSettings
from codememory.bus.permissions import ONE_PROCESS
from codememory.bus.streams import StreamSettings
from codememory.consolidate.settings import ConsolidateSettings
from codememory.consolidate.wiring import ConsolidateWiring
from codememory.embed.main import ModelSlot, store_embedder
from codememory.embed.main import create_router as embed_router
from codememory.embed.settings import EmbedSettings
from codememory.gateway.errors import ListenError
from codememory.gateway.main import gateway_wiring
from codememory.gateway.settings import GatewaySettings
from codememory.gateway.wiring import load_query_embedder
from codememory.graph.main import create_router as graph_router
from codememory.graph.settings import GraphSettings
from codememory.hookclient import HookSettings, flush_spool
from codememory.ingest.main import create_router as ingest_router
from codememory.ingest.settings import IngestSettings
from codememory.logs import configure_logging
from codememory.reviews.settings import ReviewsSettings
from codememory.reviews.wiring import ReviewsWiring
from codememory.runtime.buscreds import StackBus, prepare_bus
from codememory.runtime.certs import local_tls
from codememory.runtime.home import Runtime, clear_runtime, local_token, write_runtime
from codememory.runtime.natsd import NatsServer, nats_server_from_env
from codememory.runtime.observe import start_observers
from codememory.runtime.supervisor import processes_file, write_processes
from codememory.settings import default_home, env_bool, env_float, env_int, env_str, stream_replicas
from codememory.topology import CONSOLIDATE, EMBED, GATEWAY, GRAPH, INGEST, REVIEWS, SERVICES, parse_scale

log = structlog.get_logger(__name__)


@dataclass(frozen=True, kw_only=True)
class StackSettings:
    home: Path
    nats_url: str = ""
    nats_port: int = 0
    grpc_listen: str = "127.0.0.1:50051"
    tenant: str = "local"
    scale: Mapping[str, int] = field(default_factory=dict)  # empty: one process
    sync_always: bool = True  # the embedded server's sync_interval: always
    hook_tenants: tuple[str, ...] = ()  # more tenants to make hook credentials for (secrets/hook-<t>.json)
    tls: bool = False  # the embedded server speaks TLS only (a local CA under <home>/tls)
    # every service shares one GIL here: how long a busy thread (the projection folding an import)
    # may hold it before the event loop gets a turn (0: Python's default, 5 ms)
    switch_interval_s: float = 0.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, scale: str = "") -> StackSettings:
        return cls(
            home=default_home(environ),
            nats_url=env_str("up", "nats_url", "", environ),
            nats_port=env_int("up", "nats_port", 0, environ),
            grpc_listen=env_str("up", "grpc_listen", "127.0.0.1:50051", environ),
            tenant=env_str("up", "tenant", "local", environ),
            scale=parse_scale(scale) if scale else {},
            sync_always=env_bool("up", "sync_always", True, environ),
            hook_tenants=tuple(
                t.strip() for t in env_str("up", "hook_tenants", "", environ).split(",") if t.strip()
            ),
            tls=env_bool("up", "tls", False, environ),
            switch_interval_s=env_float("up", "switch_interval_s", 0.0, environ),
        )


async def run_stack(settings: StackSettings) -> None:
    configure_logging("up")
    settings.home.mkdir(parents=True, exist_ok=True)
    if settings.switch_interval_s > 0:
        sys.setswitchinterval(settings.switch_interval_s)
    if settings.scale:
        from codememory.runtime.cluster import run_supervised

        await run_supervised(settings)
        return
    server: NatsServer | None = None
    nats_url = settings.nats_url
    bus = embedded_bus(settings)
    if not nats_url:
        server = nats_server_from_env(
            settings.home / "nats",
            settings.nats_port,
            sync_always=settings.sync_always,
            authorization=bus.authorization,
            tls=bus.server_tls,
        )
        server.start()
        nats_url = server.url
    try:
        await _run_single(settings, nats_url, bus)
    finally:
        clear_runtime(settings.home)
        processes_file(settings.home).unlink(missing_ok=True)
        if server is not None:
            server.stop()


def embedded_bus(settings: StackSettings) -> StackBus:
    """The users, passwords and certificates of this home's server (an external one: none made)."""
    if settings.nats_url:
        return StackBus("", {})
    tls = local_tls(settings.home / "tls") if settings.tls else None
    return prepare_bus(settings.home, settings.tenant, settings.hook_tenants, tls=tls)


def up_credentials(bus: StackBus) -> BusCredentials:
    """The one-process stack's user; with an external server, whatever the environment gives."""
    return bus.credentials(ONE_PROCESS) if bus.passwords else BusCredentials.from_env("up")


def flush_hooks(settings: StackSettings, nats_url: str, bus: StackBus | None = None) -> int:
    """Publish the home's spool as the hook would: its credential (secrets/hook.json), its tenant."""
    hook = HookSettings.from_env({**os.environ, "CODEMEMORY_HOME": str(settings.home)})
    hook = hook.replace(nats_url=nats_url, **({"nats_ca": bus.ca} if bus is not None and bus.ca else {}))
    if not hook.nats_user:
        hook = hook.replace(tenant=settings.tenant)
    return flush_spool(hook)


async def keep_flushing(
    settings: StackSettings, nats_url: str, bus: StackBus | None = None, every_s: float = 2.0
) -> None:
    """Hooks that ran while the server was down spooled their events; publish them once it is back,
    rather than waiting for the next hook to do it (the spool file is locked against hooks flushing
    at the same time)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            flushed = await asyncio.to_thread(flush_hooks, settings, nats_url, bus)
        except Exception as exc:  # the server is still down: try again next time
            log.debug("spool_flush_failed", error=repr(exc))
            continue
        if flushed:
            log.info("spool_flushed", events=flushed)


async def _run_single(settings: StackSettings, nats_url: str, bus: StackBus) -> None:
    home = settings.home
    configured = GatewaySettings.from_env()
    gateway_settings = replace(
        configured,
        nats_url=nats_url,
        data_dir=home / "gateway",
        tokens={**configured.tokens, local_token(home): settings.tenant},
        admin_tokens=configured.admin_tokens | {local_token(home)},  # the owner of this home
        tls_cert=bus.server_tls.cert if bus.server_tls is not None else configured.tls_cert,
        tls_key=bus.server_tls.key if bus.server_tls is not None else configured.tls_key,
        listen=settings.grpc_listen,
        reuse_port=False,  # one gateway here: a second stack must never share its port (and tenants)
    )
    broker = service_broker(nats_url, "up", up_credentials(bus))
    ingest, embed, graph = IngestSettings.from_env(), EmbedSettings.from_env(), GraphSettings.from_env()
    # its own model instance: a batch being embedded never holds the lock a query waits on
    model = ModelSlot(lambda: store_embedder(embed), embed)
    gateway = gateway_wiring(gateway_settings, broker, lambda: load_query_embedder(gateway_settings))
    consolidate = ConsolidateWiring(ConsolidateSettings.from_env(), broker)
    reviews = ReviewsWiring(ReviewsSettings.from_env(), broker)
    app = service_app(
        [INGEST, EMBED, GRAPH, GATEWAY, CONSOLIDATE, REVIEWS],
        broker,
        [
            lambda js: ingest_router(ingest, js),
            lambda js: embed_router(embed, js, model),
            lambda js: graph_router(graph, js),
            gateway.router,
            consolidate.router,
            reviews.router,
        ],
        streams=StreamSettings(replicas=stream_replicas()),
        durable=DurableSettings(batch=embed.batch, max_deliver=embed.max_deliver),
        on_startup=[model.load, *gateway.on_startup],
        after_startup=[*gateway.after_startup, *consolidate.after_startup, *reviews.after_startup],
        on_shutdown=[*reviews.on_shutdown, *consolidate.on_shutdown, *gateway.on_shutdown],
        title="codememory up",
    )
    try:
        await app.start()
    except ListenError as exc:  # the preferred gRPC port is taken: any free one, recorded in runtime.json
        log.warning("grpc_port_taken", listen=exc.listen)
        await gateway.start(listen="127.0.0.1:0")
    assert gateway.app is not None
    grpc_address = f"127.0.0.1:{gateway.app.port}"
    flushed = await asyncio.to_thread(flush_hooks, settings, nats_url, bus)
    write_processes(home, [_row(s.name, os.getpid()) for s in SERVICES])
    write_runtime(
        home,
        Runtime(
            nats_url=nats_url,
            grpc_address=grpc_address,
            pid=os.getpid(),
            nats_ca=bus.ca,
            grpc_ca=bus.ca,
        ),
    )
    observers = start_observers(home, grpc_address)  # the web view and /metrics (observe.py)
    log.info(
        "up", mode="one process", nats_url=nats_url, grpc=grpc_address, home=str(home), spool_flushed=flushed
    )
    flusher = asyncio.create_task(keep_flushing(settings, nats_url, bus))
    await wait_for_signal()
    log.info("stopping")
    flusher.cancel()
    observers.close()
    await _bounded("services", app.stop(), 20)
    log.info("stopped")


def _row(name: str, pid: int) -> dict[str, object]:
    """One service of the one-process stack, in the supervisor's table shape (all share this pid)."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    return {
        "service": name,
        "replica": 0,
        "pid": pid,
        "restarts": 0,
        "started_at": started,
        "last_exit": None,
    }


async def wait_for_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def _bounded(what: str, awaitable: Awaitable[object], seconds: float) -> None:
    """Shut one part down within a time limit: a stuck part must not keep the process alive."""
    try:
        await asyncio.wait_for(awaitable, seconds)
    except Exception as exc:  # TimeoutError included: log and go on with the rest
        log.warning("stop_incomplete", part=what, error=f"{type(exc).__name__}: {exc}")
