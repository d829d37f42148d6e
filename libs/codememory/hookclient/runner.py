"""The hook's work: publish one event (draining the spool first) and fetch context if due.

Separate from ``main`` so that a broken import here (for instance in redaction) can still be
caught by ``main``, which must exit 0 whatever happens. ``flush_spool`` is what ``codememory up``
calls to publish everything spooled while NATS was down.

Order: the spooled backlog goes first and this event last, in one pipelined batch, so the stream
keeps the order in which events happened. The drain is bounded (``FLUSH_BUDGET_S`` and
``FLUSH_MAX_MESSAGES``); what does not fit, this event included, stays in the spool, still in
order, for the next hook. JetStream dedupes a re-published message by its ``Nats-Msg-Id``.
When another process (a hook, or ``codememory up``'s flusher) is draining the spool, this event
must not overtake the backlog it is publishing: the hook waits for the spool a little
(``SPOOL_WAIT_S``), and if it is still busy, queues its event behind the backlog.
"""

from __future__ import annotations

import time

from codememory.hookclient.context import context_request, fetch_context, format_output, is_context_event
from codememory.hookclient.forgetting import fetch_forgetting, forgetting_request, format_forgetting
from codememory.hookclient.message import HookMessage, build_message, encode_json
from codememory.hookclient.protocol import NatsError
from codememory.hookclient.settings import HookSettings, log_line
from codememory.hookclient.spool import OK, REJECT, RETRY, Spool
from codememory.hookclient.wire import NatsConnection

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["FLUSH_BUDGET_S", "FLUSH_MAX_MESSAGES", "connect", "flush_spool", "run_hook"]

FLUSH_BUDGET_S = 0.2  # how long a hook may spend draining an old backlog before its own message
FLUSH_MAX_MESSAGES = 500
SPOOL_WAIT_S = 0.3  # how long a hook waits for another process draining the spool


def run_hook(agent: str, raw: bytes, settings: HookSettings) -> str | None:
    """Publish (or spool) one event; return the context line to print, if any."""
    deadline = time.monotonic() + settings.hook_timeout_s
    message = build_message(agent, raw, tenant=settings.tenant, max_field=settings.max_field)
    spool = Spool(settings.spool_path)
    if not settings.nats_url:
        _spool(settings, spool, message, "no NATS URL (CODEMEMORY_NATS_URL or runtime.json)")
        return None
    try:
        conn = connect(settings)
    except (NatsError, OSError, ValueError) as exc:
        _spool(settings, spool, message, f"connect failed: {exc}")
        return None
    with conn:
        handled = False
        if spool.has_pending():
            try:
                result = spool.drain(
                    _sender(conn, deadline),
                    deadline=min(deadline, time.monotonic() + SPOOL_WAIT_S + FLUSH_BUDGET_S),
                    max_messages=FLUSH_MAX_MESSAGES,
                    tail=[message.to_record()],
                    lock_wait=min(SPOOL_WAIT_S, _left(deadline)),
                )
            except OSError as exc:  # an unreadable spool must not cost this event: publish it directly
                log_line(settings, f"spool drain failed: {exc}")
            else:
                handled = True
                if result is None:  # still being drained by another process: queue behind it
                    _spool(settings, spool, message, "spool busy", lock_timeout=max(_left(deadline), 0.2))
                elif result.remaining or result.rejected:
                    log_line(settings, f"spool drain: {result!r}")
        if not handled:
            try:
                conn.publish(message.subject, message.data, {"Nats-Msg-Id": message.msg_id}, _left(deadline))
            except Exception as exc:  # whatever went wrong, the event is kept for a later hook
                _spool(settings, spool, message, f"publish failed: {type(exc).__name__}: {exc}")
        event = str(message.body["event"])
        asked = forgetting_request(agent, message.body)
        if asked is not None:
            timeout = min(settings.context_timeout_s, _left(deadline))
            return format_forgetting(agent, event, fetch_forgetting(conn, settings.tenant, asked, timeout))
        if not is_context_event(agent, event):
            return None
        text = fetch_context(conn, settings.tenant, context_request(message.body), settings.context_timeout_s)
        return format_output(agent, event, text)


def flush_spool(settings: HookSettings, max_seconds: float = 30.0) -> int:
    """Publish the whole spool (for ``codememory up``); returns how many messages were flushed."""
    spool = Spool(settings.spool_path)
    if not settings.nats_url or not spool.has_pending():
        return 0
    deadline = time.monotonic() + max_seconds
    flushed = 0
    try:
        with connect(settings) as conn:
            while spool.has_pending() and time.monotonic() < deadline:
                result = spool.drain(_sender(conn, deadline), deadline=deadline)
                if result is None:  # a hook process holds the spool; let it work
                    time.sleep(0.05)
                    continue
                flushed += result.flushed
                if result.remaining and result.flushed == 0:
                    break  # the server refuses for now; keep the rest for later
    except (NatsError, OSError) as exc:
        log_line(settings, f"flush_spool: {exc}")
    return flushed


def connect(settings: HookSettings) -> NatsConnection:
    """A connection as the hook's user (its tenant's), over TLS when the server asks for it."""
    assert settings.nats_url
    return NatsConnection.connect(
        settings.nats_url,
        settings.hook_timeout_s,
        user=settings.nats_user,
        password=settings.nats_password,
        ca=settings.nats_ca,
    )


def _sender(conn: NatsConnection, deadline: float) -> Callable[[Sequence[dict[str, object]]], list[str]]:
    """A Spool sender that JetStream-publishes a batch of spool records over ``conn``."""

    def send(records: Sequence[dict[str, object]]) -> list[str]:
        outcomes: list[str | None] = [None] * len(records)
        items: list[tuple[str, bytes, dict[str, str]]] = []
        positions: list[int] = []
        for index, record in enumerate(records):
            try:
                message = HookMessage.from_record(record)
            except (KeyError, ValueError):
                outcomes[index] = REJECT
                continue
            items.append((message.subject, encode_json(message.body), {"Nats-Msg-Id": message.msg_id}))
            positions.append(index)
        try:
            results = conn.publish_many(items, _left(deadline)) if items else []
        except NatsError as exc:
            results = [exc] * len(items)
        for index, result in zip(positions, results, strict=True):
            if isinstance(result, NatsError):
                outcomes[index] = REJECT if result.permanent else RETRY
            else:
                outcomes[index] = OK
        return [o or RETRY for o in outcomes]

    return send


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.001)


def _spool(
    settings: HookSettings, spool: Spool, message: HookMessage, reason: str, lock_timeout: float = 3.0
) -> None:
    try:
        stored = spool.append([message.to_record()], lock_timeout=lock_timeout)
    except OSError as exc:
        log_line(settings, f"{reason}; spooling failed too, event lost: {exc}")
        return
    if stored:
        log_line(settings, f"{reason}; spooled {message.msg_id}")
    else:
        log_line(settings, f"{reason}; spool full ({spool.max_bytes} bytes), event dropped: {message.msg_id}")
