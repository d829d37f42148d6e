"""The ingest handler: hook messages in, domain events appended to LOG, one outcome per message.

Malformed messages are dead-lettered with the reason and the rest of the batch goes on. A message is
acknowledged only after its events were appended, so nothing acknowledged is lost; the deterministic
event ids make a redelivered message append nothing new. The tenant is the subject's (the publisher's
credential allows no other), also for a redriven message (its original subject).
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from codememory import subjects
from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
from codememory.events import Envelope, EventLog
from codememory.ingest.errors import IngestError
from codememory.ingest.message import to_envelopes

log = structlog.get_logger(__name__)


class IngestHandler:
    def __init__(self, event_log: EventLog) -> None:
        self._log = event_log

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        envelopes: list[Envelope] = []
        for delivery in deliveries:
            try:
                tenant = subjects.tenant_of(delivery.subject)
                envelopes.extend(to_envelopes(delivery.data, bound_tenant=tenant))
                outcomes.append(ACK)
            except IngestError as exc:
                outcomes.append(dead(f"{type(exc).__name__}: {exc}"))
        if envelopes:
            try:
                await self._log.append(envelopes)
            except Exception as exc:
                raise Retryable(f"append to LOG failed: {exc}") from exc
        log.debug("ingested", messages=len(deliveries), events=len(envelopes))
        return outcomes
