"""The supervisor with real processes: a child killed with SIGKILL is restarted with backoff, the table
in ``processes.json`` says so, and stopping leaves nothing running."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from codememory.runtime.supervisor import Backoff, ProcessSpec, Supervisor, read_processes
from codememory.settings import SettingsError
from codememory.topology import parse_scale

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


async def test_a_killed_child_is_restarted_and_the_table_counts_it(tmp_path: Path) -> None:
    supervisor = Supervisor(
        tmp_path,
        [ProcessSpec(service="embed", replica=r, argv=SLEEPER) for r in range(2)],
        backoff=Backoff(first_s=0.2, stable_after_s=30),
        poll_s=0.05,
    )
    supervisor.start()
    watcher = asyncio.create_task(supervisor.watch())
    try:
        first = {row["replica"]: row["pid"] for row in read_processes(tmp_path)}
        assert len(first) == 2 and all(_alive(int(pid)) for pid in first.values())  # type: ignore[call-overload]
        os.kill(int(first[0]), signal.SIGKILL)  # type: ignore[call-overload]
        async with asyncio.timeout(10):
            while not (rows := read_processes(tmp_path)) or rows[0]["restarts"] != 1 or not rows[0]["pid"]:
                await asyncio.sleep(0.05)
        assert rows[0]["pid"] != first[0] and rows[0]["last_exit"] == -signal.SIGKILL
        assert rows[1]["pid"] == first[1] and rows[1]["restarts"] == 0
        assert {"service", "pid", "restarts", "started_at"} <= set(rows[0])
    finally:
        supervisor.stop(timeout_s=5)
        watcher.cancel()
    assert not (tmp_path / "processes.json").exists()
    assert read_processes(tmp_path) == []


async def test_a_child_that_keeps_dying_is_restarted_later_each_time(tmp_path: Path) -> None:
    dies = [sys.executable, "-c", "raise SystemExit(3)"]
    supervisor = Supervisor(
        tmp_path,
        [ProcessSpec(service="ingest", replica=0, argv=dies)],
        backoff=Backoff(first_s=0.3),
        poll_s=0.02,
    )
    supervisor.start()
    watcher = asyncio.create_task(supervisor.watch())
    await asyncio.sleep(2.0)
    supervisor.stop(timeout_s=2)
    watcher.cancel()
    restarts = supervisor.children[0].restarts
    # without backoff ~100 restarts fit in 2 s; with 0.3, 0.6, 1.2 s delays (+ start time) about 3 do
    assert 2 <= restarts <= 5
    assert supervisor.children[0].last_exit == 3


def test_backoff_doubles_up_to_its_cap() -> None:
    backoff = Backoff(first_s=0.5, cap_s=4)
    assert [backoff.delay(n) for n in range(6)] == [0.0, 0.5, 1.0, 2.0, 4.0, 4.0]


def test_scale_names_services_and_defaults_the_rest_to_one() -> None:
    assert parse_scale("ingest=2,embed=4") == {
        "ingest": 2,
        "embed": 4,
        "graph": 1,
        "gateway": 1,
        "consolidate": 1,
        "reviews": 1,
    }
    for bad in ("ingest", "nope=2", "embed=0", "embed=x"):
        with pytest.raises(SettingsError):
            parse_scale(bad)
