"""Health from the projections: SERVING once they caught up with LOG, NOT_SERVING while one is stalled.

A projection is stalled when LOG's last sequence is ahead of it and it has not moved for
``stall_after_s``, or when LOG itself could not be read for that long (the replica cannot tell how
far behind it is, and cannot follow). When LOG is readable again after it was not, every follower
is restarted (a restarted server may have lost their ordered consumers, which are ephemeral). A
follower whose task has died is restarted at once and the replica is NOT_SERVING until the next
check; a stalled one is restarted too (at most once per ``stall_after_s``). When the projection
moves again, or is level with LOG, health turns back to SERVING. Kubernetes' gRPC readiness probe
reads this, so traffic leaves a replica that fell behind.

Health is per projection; several projections may be fed by one follower (``Follower.views()``: the
gateway reads LOG once for both), which is then restarted once for all of them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from codememory.projection import LiveProjection

log = structlog.get_logger(__name__)


class Restartable(Protocol):
    async def restart(self) -> None: ...


class Followed(Protocol):
    """One projection and the follower feeding it (``Follower``, or one of ``Follower.views()``)."""

    @property
    def name(self) -> str: ...
    @property
    def live(self) -> LiveProjection[Any]: ...
    @property
    def alive(self) -> bool: ...
    @property
    def restarts(self) -> int: ...
    @property
    def runner(self) -> Restartable: ...
    async def restart(self) -> None: ...


@dataclass
class _Track:
    seq: int = -1
    moved_at: float = 0.0
    restarted_at: float = float("-inf")
    stalled: bool = False


@dataclass(frozen=True)
class ProjectionHealth:
    name: str
    seq: int
    caught_up: bool
    poisoned: int
    following: bool
    stalled: bool
    restarts: int


class Watchdog:
    def __init__(
        self,
        followers: Sequence[Followed],
        log_last_seq: Callable[[], Awaitable[int]],
        set_serving: Callable[[bool], Awaitable[None]],
        *,
        stall_after_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.followers = list(followers)
        self._log_last_seq = log_last_seq
        self._set_serving = set_serving
        self.stall_after_s = stall_after_s
        self._clock = clock
        self._tracks = {f.name: _Track(moved_at=clock()) for f in followers}
        self._log_read_at = clock()
        self._log_lost = False
        self.last_log_seq = -1  # the last value read from LOG (-1: never read)
        self._ready_at: int | None = None  # LOG's last sequence when first read: caught up to it = ready
        self.ready = False
        self.serving = False

    @property
    def every_s(self) -> float:
        return min(1.0, self.stall_after_s / 4)

    async def check(self) -> bool:
        """One look at every projection; sets health; returns whether the replica is serving."""
        readable = await self._read_log()
        now = self._clock()
        if readable:
            if self._log_lost:  # the server may have lost the ordered consumers: follow afresh
                log.info("log_readable_again", log_last_seq=self.last_log_seq)
                for runner in {id(f.runner): f.runner for f in self.followers}.values():
                    await runner.restart()
            self._log_read_at = now
        self._log_lost = not readable
        reasons: list[str] = []
        if now - self._log_read_at >= self.stall_after_s:
            reasons.append("LOG unreadable")
        if self._ready_at is None and self.last_log_seq >= 0:
            self._ready_at = self.last_log_seq
        restarted: set[int] = set()  # runners restarted in this check (one may feed several)
        for follower in self.followers:
            reason = await self._check(follower, now, restarted)
            if reason:
                reasons.append(f"{follower.name}: {reason}")
        if not self.ready and self._ready_at is not None:
            self.ready = all(f.live.seq >= self._ready_at for f in self.followers)
        await self._serve(self.ready and not reasons, reasons)
        return self.serving

    async def _read_log(self) -> bool:
        try:
            self.last_log_seq = await asyncio.wait_for(self._log_last_seq(), max(1.0, self.every_s))
        except Exception as exc:  # the timeout included: a request waits out a reconnect otherwise
            log.debug("log_unreadable", error=repr(exc))
            return False
        return True

    async def _check(self, follower: Followed, now: float, restarted: set[int]) -> str:
        track = self._tracks[follower.name]
        if not follower.alive:
            log.warning("follower_dead", projection=follower.name, seq=follower.live.seq)
            await follower.restart()
            restarted.add(id(follower.runner))
            track.restarted_at = now
            return "follower died"
        seq = follower.live.seq
        if seq != track.seq or seq >= self.last_log_seq:
            track.seq, track.moved_at, track.stalled = seq, now, False
            return ""
        if now - track.moved_at < self.stall_after_s:
            return ""
        if not track.stalled:
            log.warning(
                "projection_stalled", projection=follower.name, seq=seq, log_last_seq=self.last_log_seq
            )
        track.stalled = True
        if now - track.restarted_at >= self.stall_after_s:
            track.restarted_at = now
            if id(follower.runner) not in restarted:
                restarted.add(id(follower.runner))
                await follower.restart()
        return "stalled"

    async def _serve(self, serving: bool, reasons: list[str]) -> None:
        if serving == self.serving:
            return
        await self._set_serving(serving)
        self.serving = serving
        if serving:
            log.info("gateway_serving", projections={f.name: f.live.seq for f in self.followers})
        else:
            log.warning("gateway_not_serving", reasons=reasons)

    def projections(self) -> list[ProjectionHealth]:
        return [
            ProjectionHealth(
                name=f.name,
                seq=f.live.seq,
                caught_up=f.live.seq >= self.last_log_seq,
                poisoned=f.live.poisoned,
                following=f.alive,
                stalled=self._tracks[f.name].stalled,
                restarts=f.restarts,
            )
            for f in self.followers
        ]
