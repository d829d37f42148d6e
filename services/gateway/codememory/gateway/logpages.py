"""A tenant's events of LOG, newest first, a page at a time (BrowseService.ReadEvents).

LOG holds every tenant's events; a tenant's are those under ``cm.log.<tenant>.>``, so an ephemeral
pull consumer filtered on that subject reads only them and the server does the filtering. To read
backwards (the newest first) it starts a window before the end and widens it (x4) until the page is
full or the window reaches LOG's start or ``MAX_SCAN`` events: a page costs in proportion to how far
back the tenant's events lie, never a walk of all of LOG. Envelopes are decoded to say what each event
is; one that cannot be decoded is still listed, by its subject's tag.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import msgspec
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus.pending import read_pending
from codememory.clip import clip
from codememory.events import decode_envelope, event_tag
from codememory.topology import LOG

MAX_SCAN = 50_000  # LOG events a page may look through before it answers with what it found
SUMMARY_CHARS = 400


@dataclass(frozen=True)
class LogEntry:
    seq: int
    event: str
    event_id: str
    occurred_at: float
    correlation_id: str
    summary: str


@dataclass(frozen=True)
class LogPage:
    events: list[LogEntry]  # newest first
    log_last_seq: int
    next_before_seq: int  # 0: nothing older


def entry(seq: int, subject: str, data: bytes, tenant: str) -> LogEntry | None:
    """One record as a listing row; None when its envelope names another tenant."""
    prefix = subjects.log(tenant, "")
    tag = subject[len(prefix) :] if subject.startswith(prefix) else subject
    try:
        envelope = decode_envelope(data)
    except Exception as exc:  # a future schema or a damaged record: listed, not hidden
        return LogEntry(seq, tag, "", 0.0, "", f"(cannot be decoded: {type(exc).__name__})")
    if envelope.tenant != tenant:
        return None
    summary = msgspec.json.encode(_brief(msgspec.to_builtins(envelope.payload))).decode("utf-8", "replace")
    summary = clip(summary, SUMMARY_CHARS)
    return LogEntry(
        seq=seq,
        event=event_tag(type(envelope.payload)),
        event_id=envelope.event_id,
        occurred_at=envelope.occurred_at.timestamp(),
        correlation_id=envelope.correlation_id,
        summary=summary,
    )


def _brief(value: object) -> object:
    """The payload with each vector as its length: a row should say what happened, not list floats."""
    if isinstance(value, list | tuple) and value and all(isinstance(v, float) for v in value[:8]):
        return f"[{len(value)} numbers]"
    if isinstance(value, list | tuple):
        return [_brief(v) for v in value]
    if isinstance(value, dict):
        return {k: _brief(v) for k, v in value.items()}
    return value


class TenantLog:
    def __init__(self, js: JetStreamContext, *, timeout_s: float = 2.0) -> None:
        self._js = js
        self._timeout_s = timeout_s

    async def page(self, tenant: str, before_seq: int, limit: int) -> LogPage:
        last = int((await self._js.stream_info(LOG)).state.last_seq)
        end = min(before_seq - 1, last) if before_seq > 0 else last
        window = max(limit * 4, 256)
        found: list[tuple[int, str, bytes]] = []
        start = end + 1
        while end >= 1:
            start = max(1, end - window + 1)
            found = await self._between(tenant, start, end)
            if len(found) >= limit or start == 1 or window >= MAX_SCAN:
                break
            window *= 4
        newest = found[-limit:][::-1] if limit else []
        rows = [row for row in (entry(seq, subj, data, tenant) for seq, subj, data in newest) if row]
        more = bool(newest) and (len(found) > len(newest) or start > 1)
        return LogPage(rows, last, newest[-1][0] if more else 0)

    async def _between(self, tenant: str, start: int, end: int) -> list[tuple[int, str, bytes]]:
        """The tenant's records with ``start <= seq <= end``, oldest first."""
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=start,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
        )
        records: list[tuple[int, str, bytes]] = []
        read = read_pending(self._js, subjects.log(tenant, ">"), config, batch=500, timeout_s=self._timeout_s)
        async with contextlib.aclosing(read) as messages:
            async for msg in messages:
                seq = int(msg.metadata.sequence.stream)
                if seq > end:
                    break
                records.append((seq, msg.subject, msg.data))
        return records
