"""The watchdog's rules with a fake clock: ready once caught up, NOT_SERVING while stalled, back after."""

from __future__ import annotations

from dataclasses import dataclass, field

from codememory.bus.follower import Followed
from codememory.gateway.watchdog import Watchdog


@dataclass
class FakeLive:
    name: str
    seq: int = 0
    poisoned: int = 0


@dataclass
class FakeFollower:
    live: FakeLive
    alive: bool = True
    restarts: int = 0
    log: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.live.name

    @property
    def runner(self) -> FakeFollower:
        return self

    async def restart(self) -> None:
        self.restarts += 1
        self.alive = True


class World:
    def __init__(self) -> None:
        self.now = 0.0
        self.last = 10
        self.reachable = True
        self.health: list[bool] = []
        self.memory = FakeFollower(FakeLive("memory"))
        self.code = FakeFollower(FakeLive("code"))
        self.watchdog = Watchdog(
            [self.memory, self.code],  # type: ignore[list-item]
            self.log_last_seq,
            self.set_serving,
            stall_after_s=30.0,
            clock=lambda: self.now,
        )

    async def log_last_seq(self) -> int:
        if not self.reachable:
            raise ConnectionError("no NATS")
        return self.last

    async def set_serving(self, serving: bool) -> None:
        self.health.append(serving)

    async def at(self, now: float) -> bool:
        self.now = now
        return await self.watchdog.check()


async def _ready(world: World) -> None:
    world.memory.live.seq = world.code.live.seq = world.last
    assert await world.at(1)


async def test_serving_only_once_every_projection_caught_up_with_log() -> None:
    world = World()
    assert not await world.at(0)
    world.memory.live.seq = 10
    assert not await world.at(1)  # code is still behind
    world.code.live.seq = 10
    assert await world.at(2) and world.health == [True]


async def test_behind_and_moving_is_fine_behind_and_still_is_stalled_then_recovers() -> None:
    world = World()
    await _ready(world)
    world.last = 20
    world.memory.live.seq, world.code.live.seq = 15, 20
    assert await world.at(20)
    assert await world.at(49)  # 29 s without progress: not yet
    assert not await world.at(51)
    assert world.memory.restarts == 1 and world.watchdog.projections()[0].stalled
    assert not await world.at(60) and world.memory.restarts == 1  # restarted at most once per 30 s
    world.memory.live.seq = 16
    assert await world.at(61)
    assert world.health == [True, False, True] and not world.watchdog.projections()[0].stalled


async def test_a_dead_follower_is_restarted_and_serving_resumes() -> None:
    world = World()
    await _ready(world)
    world.code.alive = False
    assert not await world.at(2)
    assert world.code.restarts == 1 and world.code.alive
    assert await world.at(3)
    assert world.health == [True, False, True]


async def test_log_unreadable_for_the_stall_time_is_not_serving() -> None:
    world = World()
    await _ready(world)
    world.reachable = False
    assert await world.at(20)
    assert not await world.at(31.5)
    world.reachable = True
    assert await world.at(32)
    assert world.memory.restarts == world.code.restarts == 1  # their ordered consumers may be gone


async def test_projection_report() -> None:
    world = World()
    world.memory.live.poisoned = 2
    await _ready(world)
    memory, code = world.watchdog.projections()
    assert (memory.name, memory.seq, memory.caught_up, memory.poisoned, memory.following) == (
        "memory",
        10,
        True,
        2,
        True,
    )
    assert code.name == "code" and not code.stalled and code.restarts == 0


async def test_one_follower_feeding_both_projections_is_restarted_once_per_cause() -> None:
    world, shared = World(), FakeFollower(FakeLive("both"))
    memory = Followed(shared, FakeLive("memory"))  # type: ignore[arg-type]
    code = Followed(shared, FakeLive("code"))  # type: ignore[arg-type]
    world.watchdog = Watchdog(
        [memory, code],  # type: ignore[list-item]
        world.log_last_seq,
        world.set_serving,
        stall_after_s=30.0,
        clock=lambda: world.now,
    )
    memory.live.seq = code.live.seq = world.last
    assert await world.at(1)
    shared.alive = False  # its task died: both projections see it
    assert not await world.at(2) and shared.restarts == 1
    assert await world.at(3)
    world.last = 20  # both behind and still: stalled, one restart for both
    assert await world.at(10)
    assert not await world.at(41) and shared.restarts == 2
    assert [p.stalled for p in world.watchdog.projections()] == [True, True]
    world.reachable = False
    assert not await world.at(42)
    world.reachable = True
    memory.live.seq = code.live.seq = 20
    assert await world.at(43) and shared.restarts == 3  # LOG readable again: one restart
    assert [(p.name, p.restarts) for p in world.watchdog.projections()] == [("memory", 3), ("code", 3)]
