"""The durable consumer ``reviews``: every LOG event in; a commit's review and an edit's forgetting out.

Each delivery waits (``wait_s``) until the service's own view has folded LOG up to it, so the judgement
sees exactly what came before; a view still behind retries the batch. Undecodable events are
dead-lettered with the reason; everything else is acknowledged once its findings are appended (their
ids are deterministic, so a retried batch stores them once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
from codememory.events import (
    CommitRecorded,
    CommitReviewed,
    Envelope,
    EventDecodeError,
    EventLog,
    ForgettingDetected,
    ToolObserved,
    decode_envelope,
    new_envelope,
)
from codememory.reviews.edits import edits_from_excerpt
from codememory.reviews.reviewer import Reviewer

__all__ = ["ReviewsHandler"]


class ReviewsHandler:
    def __init__(
        self, reviewer: Callable[[], Reviewer | None], event_log: EventLog, *, wait_s: float
    ) -> None:
        self._reviewer = reviewer
        self._log = event_log
        self._wait_s = wait_s
        self.recorded = 0

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        reviewer = self._reviewer()
        if reviewer is None:
            raise Retryable("the reviews service is starting")
        outcomes: list[Outcome] = []
        findings: list[Envelope] = []
        for delivery in deliveries:
            try:
                envelope = decode_envelope(delivery.data)
            except EventDecodeError as exc:
                outcomes.append(dead(f"{type(exc).__name__}: {exc}"))
                continue
            outcomes.append(ACK)
            found = await self._judge(reviewer, delivery.seq, envelope)
            if found is not None:
                findings.append(found)
        if findings:
            try:
                await self._log.append(findings)
            except Exception as exc:
                raise Retryable(f"append to LOG failed: {exc}") from exc
            self.recorded += len(findings)
        return outcomes

    async def _judge(self, reviewer: Reviewer, seq: int, envelope: Envelope) -> Envelope | None:
        event, tenant = envelope.payload, envelope.tenant
        payload: CommitReviewed | ForgettingDetected | None = None
        if isinstance(event, CommitRecorded):
            await self._caught_up(reviewer, seq)
            payload = await reviewer.commit(tenant, seq, event, envelope.occurred_at.timestamp())
        elif isinstance(event, ToolObserved) and event.kind == "edit" and event.phase == "post":
            edits = edits_from_excerpt(event.input_excerpt, event.paths)
            if edits and event.session_id:
                await self._caught_up(reviewer, seq)
                payload = await reviewer.forgetting(tenant, seq, event, edits)
        if payload is None:
            return None
        ident = payload.review_id if isinstance(payload, CommitReviewed) else payload.detection_id
        return new_envelope(
            payload,
            event_id=ident,
            tenant=tenant,
            causation_id=envelope.event_id,
            correlation_id=envelope.correlation_id,
        )

    async def _caught_up(self, reviewer: Reviewer, seq: int) -> None:
        if seq and not await reviewer.live.wait_for(seq, self._wait_s):
            raise Retryable(f"the view has not reached LOG {seq} yet")
