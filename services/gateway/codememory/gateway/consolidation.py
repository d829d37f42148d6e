"""The gateway's way to the consolidate service: a core NATS request on ``cm.rpc.<tenant>.consolidate``.

The tenant in the subject is the caller's, resolved from its token by the gRPC edge; the service
replies with a ``CycleReport``. No service answering, a timeout or a reply that is not a report are
``NotReady`` (UNAVAILABLE to the caller), never a hung call.
"""

from __future__ import annotations

from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError

from codememory import subjects
from codememory.cycles import CycleReport, decode_report
from codememory.gateway.errors import NotReady


class NatsConsolidation:
    def __init__(self, nc: Client, *, timeout_s: float = 120.0) -> None:
        self._nc = nc
        self._timeout_s = timeout_s

    async def run(self, tenant: str) -> CycleReport:
        try:
            reply = await self._nc.request(
                subjects.consolidate_request(tenant), b"{}", timeout=self._timeout_s
            )
        except NoRespondersError as exc:
            raise NotReady("no consolidate service is running") from exc
        except NatsTimeoutError as exc:
            raise NotReady(f"the consolidate service did not answer within {self._timeout_s:g} s") from exc
        try:
            return decode_report(reply.data)
        except ValueError as exc:
            raise NotReady(f"the consolidate service answered with something else: {exc}") from exc
