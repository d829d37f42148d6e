"""Stopping background tasks (followers, schedulers) for sure, although nats-py loses cancellations.

nats-py swallows a ``CancelledError`` that arrives while it flushes a command (``Client._flush_pending``:
a follower cancelled while it subscribes carries on and then waits for LOG forever) and turns one that
arrives in ``next_msg`` on a closed connection into ``ConnectionClosedError``. So a task is asked
again until it ends, and a loop that catches errors checks whether it was asked to stop.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["cancelling", "stop_task"]


def cancelling() -> bool:
    """Whether the current task was asked to stop (even if the ``CancelledError`` got lost)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def stop_task(task: asyncio.Task[Any], timeout: float = 5.0, every: float = 0.2) -> bool:
    """Cancel ``task`` until it ends (at most ``timeout``); True when it ended."""
    deadline = time.monotonic() + timeout
    while not task.done():
        task.cancel()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        await asyncio.wait([task], timeout=min(every, remaining))
    if not task.cancelled():
        task.exception()  # retrieved: its failure was logged where it happened
    return True
