"""Wiring of the consolidate service as a FastStream application. Nothing else lives here.

``create_app`` is the factory (``faststream run codememory.consolidate.main:create_app --factory``,
``faststream docs gen``); ``python -m codememory.consolidate.main`` and ``codememory run consolidate``
run it. ``ConsolidateWiring`` gives the same parts to ``codememory up``.
"""

from __future__ import annotations

from faststream import FastStream

from codememory.bus.app import service_app, service_broker
from codememory.bus.durable import DurableSettings
from codememory.bus.run import run_app
from codememory.bus.streams import StreamSettings
from codememory.consolidate.settings import SERVICE, ConsolidateSettings
from codememory.consolidate.wiring import ConsolidateWiring
from codememory.logs import configure_logging
from codememory.metrics import metrics_step
from codememory.topology import CONSOLIDATE

__all__ = ["ConsolidateWiring", "create_app", "main"]


def create_app(settings: ConsolidateSettings | None = None) -> FastStream:
    resolved = settings or ConsolidateSettings.from_env()
    broker = service_broker(resolved.nats_url, CONSOLIDATE.name)
    wiring = ConsolidateWiring(resolved, broker)

    async def configure() -> None:
        configure_logging(SERVICE, level=resolved.log_level)

    return service_app(
        [CONSOLIDATE],
        broker,
        [wiring.router],
        streams=StreamSettings(replicas=resolved.stream_replicas),
        durable=DurableSettings(),
        on_startup=[configure, metrics_step(SERVICE)],
        after_startup=wiring.after_startup,
        on_shutdown=wiring.on_shutdown,
        title=CONSOLIDATE.name,
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
