"""One timeout type from ``PullSubscription.fetch``, so FastStream's fetch loop survives it.

nats-py 2.16 raises a plain ``asyncio.TimeoutError`` from ``fetch`` when its deadline passes between
its two pull requests (``nats/js/client.py``: ``if deadline <= 0: raise asyncio.TimeoutError``);
everywhere else it raises ``nats.errors.TimeoutError``. FastStream 0.7.8's batch pull loop catches only
the latter, so the plain one ends its consume task: the batch it had gathered so far stays unacked
until ``ack_wait`` (60 s) redelivers it, which stalls a service for a minute at a time. Wrapping
``fetch`` once, here, turns the plain timeout into the nats one. Remove this when either pinned
package handles it (``tests/unit/bus/test_fetchfix.py`` shows the case).
"""

from __future__ import annotations

import functools
from typing import Any

from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.client import JetStreamContext

_MARK = "_codememory_timeout_unified"


def unify_fetch_timeouts() -> None:
    """Idempotent: patch ``JetStreamContext.PullSubscription.fetch`` once per process."""
    cls: Any = JetStreamContext.PullSubscription
    original = cls.fetch
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    async def fetch(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await original(self, *args, **kwargs)
        except NatsTimeoutError:
            raise
        except TimeoutError as exc:  # the plain one: FastStream's loop would die of it
            raise NatsTimeoutError from exc

    setattr(fetch, _MARK, True)
    cls.fetch = fetch


__all__ = ["unify_fetch_timeouts"]
