"""The graph handler: a batch of LOG events in, the code facts of the files they edited appended.

Undecodable events are dead-lettered with the reason; parsing runs off the event loop; a failed append
retries the batch (facts have deterministic ids per observation, so a retry stores them once).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
from codememory.codefacts import fact_envelope, redact_fact
from codememory.events import Envelope, EventDecodeError, EventLog, decode_envelope
from codememory.graph.edits import EditedFiles
from codememory.redaction import clean_text


class GraphHandler:
    def __init__(self, event_log: EventLog, files: EditedFiles) -> None:
        self._log = event_log
        self._files = files
        self.extracted = 0

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        envelopes: list[Envelope] = []
        for delivery in deliveries:
            try:
                envelopes.append(decode_envelope(delivery.data))
                outcomes.append(ACK)
            except EventDecodeError as exc:
                outcomes.append(dead(f"{type(exc).__name__}: {exc}"))
        facts = await asyncio.to_thread(self._facts, envelopes)
        if facts:
            try:
                await self._log.append(facts)
            except Exception as exc:
                self._files.forget()
                raise Retryable(f"append to LOG failed: {exc}") from exc
            self.extracted += len(facts)
        return outcomes

    def _facts(self, envelopes: list[Envelope]) -> list[Envelope]:
        return [
            fact_envelope(
                redact_fact(fact, clean_text),
                tenant=envelope.tenant,
                observed_at=envelope.occurred_at,
                correlation_id=envelope.correlation_id,
            )
            for envelope in envelopes
            for fact in self._files.facts(envelope)
        ]
