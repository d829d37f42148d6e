"""The gateway as its FastStream app, in this process, against a real nats-server: no model, a free port.

``running_gateway`` composes it exactly as ``create_app`` does (``gateway_wiring`` + ``gateway_app``)
with the word-hash embedder, and keeps the wiring so tests can reach the started ``GatewayApp``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from wordhash import WordHashEmbedder  # type: ignore[import-not-found]

from codememory.bus.app import service_broker
from codememory.gateway.app import GatewayApp
from codememory.gateway.main import gateway_app, gateway_wiring
from codememory.gateway.settings import GatewaySettings
from codememory.gateway.wiring import GatewayWiring
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc

META = (("authorization", "Bearer tok"),)


@dataclass
class Running:
    wiring: GatewayWiring
    channel: grpc.aio.Channel

    @property
    def app(self) -> GatewayApp:
        assert self.wiring.app is not None
        return self.wiring.app

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.app.port}"

    def stub(self) -> memory_pb2_grpc.MemoryServiceStub:
        return memory_pb2_grpc.MemoryServiceStub(self.channel)

    async def status(self) -> pb.StatusResponse:
        response: pb.StatusResponse = await self.stub().Status(pb.StatusRequest(), metadata=META, timeout=10)
        return response

    async def store(self, text: str) -> str:
        written = await self.stub().Store(pb.StoreRequest(text=text), metadata=META, timeout=10)
        return str(written.memory_id)


@asynccontextmanager
async def running_gateway(nats_url: str, data_dir: Path, **overrides: Any) -> AsyncIterator[Running]:
    settings = GatewaySettings(
        nats_url=nats_url,
        listen="127.0.0.1:0",
        data_dir=data_dir,
        tokens={"tok": "alpha"},
        admin_tokens=frozenset({"tok"}),
        reflection=False,
        centrality_every_s=60.0,
        **overrides,
    )
    broker = service_broker(nats_url, "gateway")
    wiring = gateway_wiring(settings, broker, WordHashEmbedder)
    app = gateway_app(settings, broker, wiring)
    await app.start()
    try:
        assert wiring.app is not None
        async with grpc.aio.insecure_channel(f"127.0.0.1:{wiring.app.port}") as channel:
            yield Running(wiring, channel)
    finally:
        await app.stop()
    left = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("gateway-") and not t.done()]
    assert not left, f"the gateway's tasks outlived its stop: {left}"


async def until(condition: Callable[[], Any], timeout: float = 15.0, every: float = 0.05) -> Any:
    """Wait for ``condition()`` (sync or async) to be truthy; returns its value."""
    async with asyncio.timeout(timeout):
        while True:
            value = condition()
            if asyncio.iscoroutine(value):
                value = await value
            if value:
                return value
            await asyncio.sleep(every)
