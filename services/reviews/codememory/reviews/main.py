"""Wiring of the reviews service as a FastStream application. Nothing else lives here.

``create_app`` is the factory (``faststream run codememory.reviews.main:create_app --factory``,
``faststream docs gen``); ``python -m codememory.reviews.main`` and ``codememory run reviews`` run it.
``ReviewsWiring`` gives the same parts to ``codememory up``.
"""

from __future__ import annotations

from faststream import FastStream

from codememory.bus.app import durable_settings, service_app, service_broker
from codememory.bus.run import run_app
from codememory.bus.streams import StreamSettings
from codememory.logs import configure_logging
from codememory.metrics import metrics_step
from codememory.reviews.settings import SERVICE, ReviewsSettings
from codememory.reviews.wiring import ReviewsWiring
from codememory.topology import REVIEWS

__all__ = ["ReviewsWiring", "create_app", "main"]


def create_app(settings: ReviewsSettings | None = None) -> FastStream:
    resolved = settings or ReviewsSettings.from_env()
    broker = service_broker(resolved.nats_url, REVIEWS.name)
    wiring = ReviewsWiring(resolved, broker)

    async def configure() -> None:
        configure_logging(SERVICE, level=resolved.log_level)

    return service_app(
        [REVIEWS],
        broker,
        [wiring.router],
        streams=StreamSettings(replicas=resolved.stream_replicas),
        durable=durable_settings(resolved),
        on_startup=[configure, metrics_step(SERVICE)],
        after_startup=wiring.after_startup,
        on_shutdown=wiring.on_shutdown,
        title=REVIEWS.name,
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
