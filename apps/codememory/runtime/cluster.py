"""``codememory up --scale svc=N``: nats-server and every service replica as supervised OS processes.

Each replica runs ``python -m codememory.<service>.main`` (what a container runs) with its settings in
the environment. Replicas of a consumer service share its durable consumer; each gateway replica has
its own data directory (its own Qdrant Edge shard and ordered consumers of LOG) and all of them listen
on the one gRPC address (SO_REUSEPORT: the kernel spreads connections). nats-server is supervised too,
on the same port and store, so a restarted server is the same server to every client. Each replica
logs in to NATS as its own service's user (``runtime.buscreds``), with that service's permissions.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from pathlib import Path

import grpc
import structlog

from codememory.runtime.buscreds import StackBus
from codememory.runtime.home import Runtime, clear_runtime, local_token, write_runtime
from codememory.runtime.natsd import NatsServer, free_port, listening, nats_server_from_env
from codememory.runtime.observe import Observers, metrics_env, metrics_url, start_observers
from codememory.runtime.stack import (
    StackSettings,
    embedded_bus,
    flush_hooks,
    keep_flushing,
    wait_for_signal,
)
from codememory.runtime.supervisor import ProcessSpec, Supervisor
from codememory.topology import SERVICES

log = structlog.get_logger(__name__)


def _free_listen(preferred: str) -> str:
    """The preferred address when it is free, else a free port: every gateway replica binds this one."""
    host, _, port = preferred.rpartition(":")
    if int(port) == 0:
        return f"{host or '127.0.0.1'}:{free_port()}"
    with socket.socket() as sock:
        try:
            sock.bind((host or "127.0.0.1", int(port)))
            return preferred
        except OSError:
            return f"{host or '127.0.0.1'}:{free_port()}"


def service_specs(
    settings: StackSettings, nats_url: str, grpc_listen: str, bus: StackBus | None = None
) -> list[ProcessSpec]:
    """One process per replica, each with its own service's NATS user (from ``bus``, when made)."""
    home = settings.home
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    tokens = os.environ.get("CODEMEMORY_GATEWAY_TOKENS", "")
    local = f"{local_token(home)}={settings.tenant}"
    common = {
        "CODEMEMORY_NATS_URL": nats_url,
        "CODEMEMORY_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    specs = []
    ports = metrics_env(sum(settings.scale.get(svc.name, 1) for svc in SERVICES))
    for svc in SERVICES:
        for replica in range(settings.scale.get(svc.name, 1)):
            env = dict(common) | ports.pop()  # each replica its own /metrics
            if bus is not None and bus.passwords:
                env |= bus.credentials(svc.name).as_env()
            if svc.serves_grpc:
                data_dir = home / ("gateway" if replica == 0 else f"gateway-{replica}")
                env |= {
                    "CODEMEMORY_GATEWAY_LISTEN": grpc_listen,
                    "CODEMEMORY_GATEWAY_DATA_DIR": str(data_dir),
                    "CODEMEMORY_GATEWAY_TOKENS": ",".join(filter(None, (tokens, local))),
                    **(
                        {
                            "CODEMEMORY_GATEWAY_TLS_CERT": bus.server_tls.cert,
                            "CODEMEMORY_GATEWAY_TLS_KEY": bus.server_tls.key,
                        }
                        if bus is not None and bus.server_tls is not None
                        else {}
                    ),
                    "CODEMEMORY_GATEWAY_ADMIN_TOKENS": ",".join(
                        filter(
                            None, (os.environ.get("CODEMEMORY_GATEWAY_ADMIN_TOKENS", ""), local_token(home))
                        )
                    ),
                }
            specs.append(
                ProcessSpec(
                    service=svc.name,
                    replica=replica,
                    argv=[sys.executable, "-m", svc.module],
                    env=env,
                    log_file=logs / f"{svc.name}-{replica}.log",
                )
            )
    return specs


async def wait_serving(address: str, timeout_s: float = 180.0, ca: str = "") -> bool:
    """True once the gRPC health service at ``address`` answers SERVING (over TLS with ``ca``)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout_s
    channel = (
        grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(Path(ca).read_bytes()))
        if ca
        else grpc.aio.insecure_channel(address)
    )
    async with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.25)
    return False


async def run_supervised(settings: StackSettings) -> None:
    home = settings.home
    specs: list[ProcessSpec] = []
    server: NatsServer | None = None
    nats_url = settings.nats_url
    bus = embedded_bus(settings)
    if not nats_url:
        server = nats_server_from_env(
            home / "nats",
            settings.nats_port,
            sync_always=settings.sync_always,
            authorization=bus.authorization,
            tls=bus.server_tls,
        )
        nats_url = server.url
        specs.append(
            ProcessSpec(
                service="nats", replica=0, argv=server.command(), log_file=home / "nats" / "nats-server.log"
            )
        )
    grpc_listen = _free_listen(settings.grpc_listen)
    specs += service_specs(settings, nats_url, grpc_listen, bus)
    observers = Observers()
    supervisor = Supervisor(home, specs)
    supervisor.start()
    watcher = asyncio.create_task(supervisor.watch())
    try:
        if server is not None:
            await _wait_listening(server.port)
        flushed = await asyncio.to_thread(flush_hooks, settings, nats_url, bus)
        address = f"127.0.0.1:{grpc_listen.rpartition(':')[2]}"
        serving = await wait_serving(address, ca=bus.ca)
        write_runtime(
            home,
            Runtime(nats_url=nats_url, grpc_address=address, pid=os.getpid(), nats_ca=bus.ca, grpc_ca=bus.ca),
        )
        urls = [metrics_url(s.env) for s in specs if "CODEMEMORY_METRICS_PORT" in s.env]
        observers = start_observers(home, address, metrics_urls=urls)
        log.info(
            "up",
            mode="supervised",
            scale=dict(settings.scale),
            nats_url=nats_url,
            grpc=address,
            serving=serving,
            spool_flushed=flushed,
        )
        flusher = asyncio.create_task(keep_flushing(settings, nats_url, bus))
        await wait_for_signal()
        flusher.cancel()
    finally:
        log.info("stopping")
        observers.close()
        clear_runtime(home)
        await asyncio.to_thread(supervisor.stop)
        watcher.cancel()
        log.info("stopped")


async def _wait_listening(port: int, timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not listening(port):
        if time.monotonic() > deadline:
            raise RuntimeError(f"nats-server did not listen on {port} within {timeout_s}s")
        await asyncio.sleep(0.05)


__all__ = ["run_supervised", "service_specs", "wait_serving"]
