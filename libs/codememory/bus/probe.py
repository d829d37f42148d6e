"""Try one bus action as one user and say what the server did: the permissions probe.

The security tests and ``benchmarks/bench_security.py`` ask running nats-servers the same question (may
this user do this?), and the answer has to tell a denial from a broken client: nats-server reports a
permission violation asynchronously, through the error callback, while the action itself may simply
time out. A probe connects as the user (with its own reply inbox, as its real connections do), runs
the action under a deadline, flushes, waits a moment for the server's verdict and returns what
happened. The action builders cover what the attacks need: a JetStream publish, a plain
subscription, a request, a stream lookup and an ordered read of a stream.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import nats
from nats.aio.client import Client

from codememory import subjects

Action = Callable[[Client], Awaitable[Any]]


@dataclass(frozen=True)
class Probe:
    """What the server did with one attempt."""

    completed: bool  # the action returned within its deadline
    violations: tuple[str, ...] = ()  # the permission violations the server reported
    refused: str = ""  # the login was refused (the exception's type)

    @property
    def allowed(self) -> bool:
        return self.completed and not self.violations and not self.refused

    @property
    def denied(self) -> bool:
        """Refused at login, or the server reported a permission violation (not merely a failure).

        A denied subscription still "completes" on the client: the server says no asynchronously."""
        return bool(self.refused) or bool(self.violations)

    def outcome(self) -> str:
        """One word for a results table."""
        if self.refused:
            return f"denied (login refused: {self.refused})"
        if self.violations:
            return "denied (permissions violation)"
        return "ALLOWED" if self.completed else "failed without a violation"


def inbox_of(user: str) -> str:
    """The reply inbox a user may read, as its own connections use it (``subjects.inbox``)."""
    return subjects.inbox(user)


def attempt(
    url: str, user: str, password: str, action: Action, *, deadline: float = 2.0, settle: float = 0.2
) -> Probe:
    """Run ``action`` as ``user`` on a fresh connection (blocking; it runs its own event loop)."""
    return asyncio.run(_attempt(url, user, password, action, deadline, settle))


def attempt_many(
    url: str, user: str, password: str, actions: list[Action], *, deadline: float = 2.0, settle: float = 0.2
) -> list[Probe]:
    """``attempt`` for each action at once, each on its own connection (a denied action mostly waits
    out its deadline, so a list of attacks tried in turn waits for each), in the order given."""

    async def every() -> list[Probe]:
        return list(
            await asyncio.gather(*(_attempt(url, user, password, a, deadline, settle) for a in actions))
        )

    return asyncio.run(every())


async def _attempt(
    url: str, user: str, password: str, action: Action, deadline: float, settle: float
) -> Probe:
    violations: list[str] = []

    async def on_error(exc: Exception) -> None:
        if "permissions violation" in str(exc).lower():
            violations.append(str(exc))

    try:
        nc = await nats.connect(
            url,
            user=user or None,
            password=password or None,
            error_cb=on_error,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            connect_timeout=2,
            inbox_prefix=inbox_of(user),
        )
    except Exception as exc:  # an anonymous client or a wrong password: the login is refused
        return Probe(completed=False, refused=type(exc).__name__)
    try:
        try:
            await asyncio.wait_for(action(nc), deadline)
            completed = True
        except Exception:  # a timeout or a NATS error: the violation, if any, says why
            completed = False
        await nc.flush(timeout=2)
        await asyncio.sleep(settle)
    finally:
        await nc.close()
    return Probe(completed=completed, violations=tuple(violations))


def js_publish(subject: str, body: bytes = b"{}") -> Action:
    async def act(nc: Client) -> Any:
        return await nc.jetstream().publish(subject, body, headers={"Nats-Msg-Id": str(uuid.uuid4())})

    return act


def subscribe(subject: str) -> Action:
    async def act(nc: Client) -> Any:
        sub = await nc.subscribe(subject)
        await nc.flush()
        return sub

    return act


def request(subject: str, body: bytes = b"{}", timeout: float = 1.5) -> Action:
    async def act(nc: Client) -> Any:
        return await nc.request(subject, body, timeout=timeout)

    return act


def stream_info(stream: str) -> Action:
    async def act(nc: Client) -> Any:
        return await nc.jetstream().stream_info(stream)

    return act


def read_stream(stream: str, subject: str, timeout: float = 1.0) -> Action:
    async def act(nc: Client) -> Any:
        sub = await nc.jetstream().subscribe(subject, stream=stream, ordered_consumer=True)
        return await sub.next_msg(timeout=timeout)

    return act
