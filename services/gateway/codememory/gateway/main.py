"""Wiring of the gateway as a FastStream application. Nothing else lives here.

``create_app`` is the factory (``faststream run codememory.gateway.main:create_app --factory``, and
``faststream docs gen``); ``python -m codememory.gateway.main`` and ``codememory run gateway`` run it.
``gateway_wiring`` gives the same parts to ``codememory up``, which puts them on its shared broker.
"""

from __future__ import annotations

from collections.abc import Callable

from faststream import FastStream
from faststream.nats import NatsBroker

from codememory.bus.app import service_app, service_broker
from codememory.bus.durable import DurableSettings
from codememory.bus.run import run_app
from codememory.bus.streams import StreamSettings
from codememory.embedding import Embedder
from codememory.gateway.settings import SERVICE, GatewaySettings
from codememory.gateway.wiring import GatewayWiring, gateway_wiring, load_query_embedder
from codememory.logs import configure_logging
from codememory.metrics import metrics_step
from codememory.topology import GATEWAY

__all__ = ["GatewayWiring", "create_app", "gateway_app", "gateway_wiring", "main"]


def create_app(
    settings: GatewaySettings | None = None, *, embedder: Callable[[], Embedder] | None = None
) -> FastStream:
    """``embedder`` loads the query model (default: the bundled MiniLM as configured)."""
    resolved = settings or GatewaySettings.from_env()
    broker = service_broker(resolved.nats_url, GATEWAY.name)
    wiring = gateway_wiring(resolved, broker, embedder or (lambda: load_query_embedder(resolved)))
    return gateway_app(resolved, broker, wiring)


def gateway_app(settings: GatewaySettings, broker: NatsBroker, wiring: GatewayWiring) -> FastStream:
    """The gateway alone on ``broker``: streams ensured (it has no durable consumers), logging configured."""

    async def configure() -> None:
        configure_logging(SERVICE, level=settings.log_level)

    return service_app(
        [GATEWAY],
        broker,
        [wiring.router],
        streams=StreamSettings(replicas=settings.stream_replicas),
        durable=DurableSettings(),
        on_startup=[configure, metrics_step(SERVICE), *wiring.on_startup],
        after_startup=wiring.after_startup,
        on_shutdown=wiring.on_shutdown,
        title=GATEWAY.name,
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
