"""Whether ingest has taken every hook message HOOKS held when an erasure began (the NATS side of it).

HOOKS is a work queue of raw hook payloads, prompts included, that ingest seals into LOG and then
acknowledges, which removes them from the stream. A prompt still waiting there when its user or
session is erased would outlive the erasure twice over: its raw bytes stay in HOOKS, and once ingest
takes it after the keys are gone it is sealed under the user's new key (a user erased and seen again
starts afresh). So ``erase --user`` and ``--session`` first wait until every message HOOKS held at
that moment has been taken (the stream's first sequence has passed its last one, or it is empty):
those prompts are then in LOG under the keys about to be destroyed. Messages published meanwhile do
not hold the erasure up. Purging the erased user's messages from HOOKS instead would need the gateway
to read every tenant's raw hooks (their user and session are in the payload, not the subject) and to
delete from a stream it has no business writing, and would still race a message ingest was taking.
"""

from __future__ import annotations

import asyncio
import time

from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError

from codememory.topology import HOOKS

__all__ = ["HooksDrain"]

POLL_S = 0.05


class HooksDrain:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def __call__(self, timeout_s: float) -> bool:
        """True once every message HOOKS holds now has been taken by ingest; False after ``timeout_s``."""
        try:
            state = (await self._js.stream_info(HOOKS)).state
        except NotFoundError:
            return True  # no HOOKS stream: nothing can wait in it
        last = int(state.last_seq)
        deadline = time.monotonic() + timeout_s
        while state.messages and int(state.first_seq) <= last:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
            state = (await self._js.stream_info(HOOKS)).state
        return True
