"""Cycles on request over core NATS request-reply on ``cm.rpc.<tenant>.consolidate``.

The gateway asks on behalf of an authenticated caller (``Consolidate`` RPC, ``codememory
consolidate``); every replica subscribes in the queue group ``consolidate``, so one of them runs
each cycle. The reply is a ``CycleReport`` as JSON; a failure is a report with ``error`` set (the
gateway turns it into a gRPC status). The tenant is the subject's tenant token.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog
from faststream.nats import NatsMessage, NatsRouter
from faststream.params import NoCast

from codememory import subjects
from codememory.bus.app import raw_body
from codememory.consolidate.consolidator import Consolidator
from codememory.cycles import CycleReport, encode_report
from codememory.topology import CONSOLIDATE

log = structlog.get_logger(__name__)


def consolidate_router(consolidator: Callable[[], Consolidator | None]) -> NatsRouter:
    """``consolidator`` gives the service's consolidator once it has started (None before)."""
    router = NatsRouter()

    @router.subscriber(
        subjects.CONSOLIDATE_REQUESTS,
        queue=CONSOLIDATE.name,
        decoder=raw_body,
        max_workers=2,
        title="consolidate:request",
        description="run one consolidation cycle for the subject's tenant now; JSON CycleReport out",
    )
    async def request(body: NoCast[bytes], message: NatsMessage) -> bytes:
        tenant = subjects.tenant_of(message.raw_message.subject)
        running = consolidator()
        if running is None:
            return encode_report(CycleReport(error="the consolidate service is starting"))
        try:
            return encode_report(await running.run(tenant, "request"))
        except Exception as exc:
            log.exception("consolidation_request_failed", tenant=tenant)
            return encode_report(CycleReport(error=f"{type(exc).__name__}: {exc}"))

    return router
