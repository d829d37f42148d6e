"""``codememory hook --agent NAME``: the short-lived process an agent runs for every hook event.

It must never break the agent: whatever happens it exits 0, writes nothing to stdout but the
context JSON, and sends errors to ``<home>/logs/hook.log``. It must also be fast (the agent waits
for it), so it imports only the stdlib and ``codememory.redaction``; the ``codememory`` console
script dispatches here before importing typer or anything heavy.

Steps: read stdin, build the message (stamped, redacted, trimmed), connect to NATS, publish any
spooled messages first (bounded, so a long backlog never holds the agent up for long) and then
this one; on any failure spool it. On context events, ask the gateway for context over the same
connection and print it in the agent's format.
"""

from __future__ import annotations

import os
import sys
import time

from codememory.hookclient.context import context_request, fetch_context, format_output, is_context_event
from codememory.hookclient.message import HookMessage, build_message, encode_json
from codememory.hookclient.protocol import NatsError
from codememory.hookclient.settings import HookSettings
from codememory.hookclient.spool import OK, REJECT, RETRY, Spool
from codememory.hookclient.wire import NatsConnection

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["FLUSH_BUDGET_S", "FLUSH_MAX_MESSAGES", "flush_spool", "main", "run_hook"]

FLUSH_BUDGET_S = 0.2  # how long a hook may spend draining an old backlog before its own message
FLUSH_MAX_MESSAGES = 500
_LOG_MAX_BYTES = 1024 * 1024


def main(argv: list[str]) -> int:
    """Entry point; always returns 0."""
    settings: HookSettings | None = None
    try:
        settings = HookSettings.from_env()
        agent = _parse_agent(argv)
        if agent is None:
            _log(settings, f"no --agent in {argv!r}; recording as 'unknown'")
            agent = "unknown"
        output = run_hook(agent, _read_stdin(), settings)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # the agent must never see a failure
        _log(settings, f"hook failed: {type(exc).__name__}: {exc}")
    return 0


def run_hook(agent: str, raw: bytes, settings: HookSettings) -> str | None:
    """Publish (or spool) one event; return the context line to print, if any."""
    deadline = time.monotonic() + settings.hook_timeout_s
    message = build_message(agent, raw, tenant=settings.tenant, max_field=settings.max_field)
    spool = Spool(settings.spool_path)
    if not settings.nats_url:
        _spool(settings, spool, message, "no NATS URL (CODEMEMORY_NATS_URL or runtime.json)")
        return None
    try:
        conn = NatsConnection.connect(settings.nats_url, settings.hook_timeout_s)
    except (NatsError, OSError, ValueError) as exc:
        _spool(settings, spool, message, f"connect failed: {exc}")
        return None
    with conn:
        handled = False
        if spool.has_pending():
            flush_deadline = min(deadline, time.monotonic() + FLUSH_BUDGET_S)
            result = spool.drain(
                _sender(conn, deadline),
                deadline=flush_deadline,
                max_messages=FLUSH_MAX_MESSAGES,
                tail=[message.to_record()],
            )
            handled = result is not None  # None: another process is draining; publish directly
            if result is not None and (result.remaining or result.rejected):
                _log(settings, f"spool drain: {result!r}")
        if not handled:
            try:
                conn.publish(message.subject, message.data, {"Nats-Msg-Id": message.msg_id}, _left(deadline))
            except NatsError as exc:
                _spool(settings, spool, message, f"publish failed: {exc}")
        event = str(message.body["event"])
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
        with NatsConnection.connect(settings.nats_url, settings.hook_timeout_s) as conn:
            while spool.has_pending() and time.monotonic() < deadline:
                result = spool.drain(_sender(conn, deadline), deadline=deadline)
                if result is None:  # a hook process holds the spool; let it work
                    time.sleep(0.05)
                    continue
                flushed += result.flushed
                if result.remaining and result.flushed == 0:
                    break  # the server refuses for now; keep the rest for later
    except (NatsError, OSError) as exc:
        _log(settings, f"flush_spool: {exc}")
    return flushed


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


def _spool(settings: HookSettings, spool: Spool, message: HookMessage, reason: str) -> None:
    try:
        stored = spool.append([message.to_record()])
    except OSError as exc:
        _log(settings, f"{reason}; spooling failed too, event lost: {exc}")
        return
    if stored:
        _log(settings, f"{reason}; spooled {message.msg_id}")
    else:
        _log(settings, f"{reason}; spool full ({spool.max_bytes} bytes), event dropped: {message.msg_id}")


def _parse_agent(argv: Sequence[str]) -> str | None:
    for index, arg in enumerate(argv):
        if arg == "--agent" and index + 1 < len(argv):
            return argv[index + 1] or None
        if arg.startswith("--agent="):
            return arg[len("--agent=") :] or None
    return None


def _read_stdin() -> bytes:
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return b""
    return stdin.buffer.read()


def _log(settings: HookSettings | None, text: str) -> None:
    """Append one line to the hook log; never raises."""
    try:
        if settings is None:
            settings = HookSettings.from_env()
        path = settings.log_path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if os.stat(path).st_size > _LOG_MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(f"{stamp} pid={os.getpid()} {text}\n")
    except BaseException:
        pass
