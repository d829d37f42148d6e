"""What ``codememory status`` shows, from the replica that answers: LOG, every consumer, projections, health.

Every durable consumer named in ``codememory.topology`` is reported (a consumer its service never
created shows ``exists: false``), so a new service appears here without an edit. The projections and
the serving flag are this replica's own (each replica follows LOG itself); ``pid`` and ``host`` say
which replica answered.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable

from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError

from codememory.gateway.core import GatewayCore
from codememory.gateway.watchdog import Watchdog
from codememory.topology import DLQ, HOOKS, LOG, REDRIVE, SERVICES, durable_consumers
from codememory.v1 import memory_pb2 as pb

STREAMS = (HOOKS, LOG, DLQ, REDRIVE)
_SERVICE_OF = {c.durable: s.name for s in SERVICES for c in (*s.consumers, s.redrive)}


class StatusSource:
    def __init__(
        self,
        js: JetStreamContext,
        core: GatewayCore,
        watchdog: Watchdog,
        index_building: Callable[[], bool] = lambda: False,
    ) -> None:
        self._js = js
        self._index_building = index_building  # a replay's HNSW built apart (``indexbuild``)
        self._core = core
        self._watchdog = watchdog

    async def log_last_seq(self) -> int:
        return int((await self._js.stream_info(LOG)).state.last_seq)

    async def _streams(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name in STREAMS:
            try:
                counts[name] = int((await self._js.stream_info(name)).state.messages)
            except Exception:
                counts[name] = 0
        return counts

    async def _consumers(self) -> list[pb.ConsumerStatus]:
        found = []
        for consumer in durable_consumers():
            status = pb.ConsumerStatus(
                service=_SERVICE_OF[consumer.durable], stream=consumer.stream, durable=consumer.durable
            )
            try:
                info = await self._js.consumer_info(consumer.stream, consumer.durable)
            except NotFoundError:
                found.append(status)
                continue
            status.exists = True
            status.pending = int(info.num_pending or 0)
            status.ack_pending = int(info.num_ack_pending or 0)
            status.redelivered = int(info.num_redelivered or 0)
            found.append(status)
        return found

    async def status(self) -> pb.StatusResponse:
        streams = await self._streams()
        consumers = await self._consumers()
        last = await self.log_last_seq()
        projections = [
            pb.ProjectionStatus(
                name=p.name,
                seq=p.seq,
                caught_up=p.seq >= last,
                poison=p.poisoned,
                following=p.following,
                stalled=p.stalled,
                restarts=p.restarts,
            )
            for p in self._watchdog.projections()
        ]
        applied = self._core.live.seq
        pending = {c.durable: c.pending + c.ack_pending for c in consumers}
        pending["gateway"] = max(0, last - applied)
        return pb.StatusResponse(
            log_last_seq=last,
            projection_seq=applied,
            memories=await self._core.count(),
            consumer_pending=pending,
            stream_messages=streams,
            model=self._core.embedder.model_id,
            caught_up=all(p.caught_up for p in projections),
            consumers=consumers,
            dlq_messages=streams[DLQ],
            projections=projections,
            serving=self._watchdog.serving,
            pid=os.getpid(),
            host=socket.gethostname(),
            index_building=self._index_building(),
        )
