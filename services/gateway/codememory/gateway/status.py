"""Health and counts for ``codememory status``: LOG position, projection position, consumer lag."""

from __future__ import annotations

from nats.js.client import JetStreamContext

from codememory.bus import DLQ, HOOKS, LOG
from codememory.gateway.core import GatewayCore
from codememory.v1 import memory_pb2 as pb

CONSUMERS = ((HOOKS, "ingest"), (LOG, "embed"))


class StatusSource:
    def __init__(self, js: JetStreamContext, core: GatewayCore) -> None:
        self._js = js
        self._core = core

    async def log_last_seq(self) -> int:
        return int((await self._js.stream_info(LOG)).state.last_seq)

    async def status(self) -> pb.StatusResponse:
        streams: dict[str, int] = {}
        for name in (HOOKS, LOG, DLQ):
            try:
                streams[name] = int((await self._js.stream_info(name)).state.messages)
            except Exception:
                streams[name] = 0
        pending: dict[str, int] = {}
        for stream, durable in CONSUMERS:
            try:
                info = await self._js.consumer_info(stream, durable)
                pending[durable] = int(info.num_pending or 0) + int(info.num_ack_pending or 0)
            except Exception:
                pending[durable] = 0
        last = await self.log_last_seq()
        applied = self._core.live.seq
        pending["gateway"] = max(0, last - applied)
        return pb.StatusResponse(
            log_last_seq=last,
            projection_seq=applied,
            memories=await self._core.count(),
            consumer_pending=pending,
            stream_messages=streams,
            model=self._core.embedder.model_id,
            caught_up=applied >= last,
        )
