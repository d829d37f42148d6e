"""What an ephemeral pull consumer of LOG has pending when it starts: a bounded read, over at its end.

Why: a read of a few events (the embed service's model events, every ``REFRESH_S``; a tenant's page of
LOG for the web view) that ended when a fetch timed out spent that timeout on every call: the embed
handler waited 1 s every 5 s, and an import of 3,000 memories with vectors took 26.6 s against 20.1 s
once the read stopped at its last event (benchmarks/RESULTS.md). The consumer's pending count, read
once at the start, says where the end is; what is appended after the start is left to the next read.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig
from nats.js.client import JetStreamContext

from codememory.topology import LOG


async def read_pending(
    js: JetStreamContext, subject: str, config: ConsumerConfig, *, batch: int = 256, timeout_s: float = 5.0
) -> AsyncGenerator[Msg, None]:
    """The messages on ``subject`` pending for a consumer made with ``config``, in LOG order; the
    consumer is removed when the read ends or is closed (``contextlib.aclosing``)."""
    sub = await js.pull_subscribe(subject, stream=LOG, config=config)
    try:
        pending = int((await sub.consumer_info()).num_pending or 0)
        while pending > 0:
            try:
                messages = await sub.fetch(min(pending, batch), timeout=timeout_s)
            except TimeoutError:
                return  # fewer than counted (a stream purged meanwhile): what came is all there is
            for msg in messages:
                pending -= 1
                yield msg
    finally:
        await sub.unsubscribe()


__all__ = ["read_pending"]
