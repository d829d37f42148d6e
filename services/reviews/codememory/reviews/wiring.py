"""The reviews service's parts for a FastStream application: its routers, start and stop.

``create_app`` (``main.py``) puts them on the service's own broker; ``codememory up`` on its shared
one. Once the broker has connected, the view starts following LOG from the beginning (it lives in
memory); the durable consumer ``reviews`` judges each commit and edit once the view has reached it,
and the responder answers the hook's forgetting question from the same view.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from faststream.nats import NatsBroker, NatsRouter

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream
from codememory.bus.durable import DurableSettings, subscribe_durable
from codememory.bus.follower import Follower
from codememory.projection import LiveProjection
from codememory.reviews.handler import ReviewsHandler
from codememory.reviews.responder import forgetting_router
from codememory.reviews.reviewer import Reviewer
from codememory.reviews.settings import ReviewsSettings
from codememory.reviews.view import ReviewsView
from codememory.topology import REVIEWS

Step = Callable[[], Awaitable[None]]


class ReviewsWiring:
    def __init__(self, settings: ReviewsSettings, broker: NatsBroker) -> None:
        self.settings = settings
        self._broker = broker
        self.reviewer: Reviewer | None = None
        self._follower: Follower | None = None
        self.after_startup: list[Step] = [self.start]
        self.on_shutdown: list[Step] = [self.stop]

    def router(self, jetstream: BrokerJetStream) -> NatsRouter:
        router = forgetting_router(lambda: self.reviewer)
        durable = DurableSettings(
            batch=self.settings.batch,
            max_deliver=self.settings.max_deliver,
            ack_wait_s=self.settings.ack_wait_s,
        )
        subscribe_durable(
            router,
            REVIEWS,
            durable,
            lambda js: ReviewsHandler(
                lambda: self.reviewer, JetStreamEventLog(js), wait_s=self.settings.wait_s
            ),
            jetstream=jetstream,
        )
        return router

    async def start(self) -> None:
        if self.reviewer is not None:
            return
        js = BrokerJetStream(self._broker)()
        live = LiveProjection(ReviewsView(), name=REVIEWS.name)
        self._follower = Follower(js, live, kinds=ReviewsView.FOLDS)
        self._follower.start()
        self.reviewer = Reviewer(live, commit_max_age_s=self.settings.commit_max_age_s)

    async def stop(self) -> None:
        follower, self._follower = self._follower, None
        if follower is not None:
            await follower.stop()
        self.reviewer = None
