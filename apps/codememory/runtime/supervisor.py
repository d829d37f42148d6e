"""Supervising OS processes: start each, restart what dies (kill -9 included) with backoff, say so.

``codememory up --scale`` runs nats-server and every service replica as children of one supervisor.
A child that exits is restarted after a delay that doubles per quick death (``Backoff``) and resets
once it has stayed up; every exit and restart is logged, and the table of processes (service,
replica, pid, restarts, started_at) is rewritten to ``processes.json`` in the home on every change,
where ``codememory status`` reads it. Stopping sends SIGTERM to all, then SIGKILL to what lingers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Backoff:
    first_s: float = 0.5
    cap_s: float = 30.0
    stable_after_s: float = 30.0  # up this long: the next death restarts at once again

    def delay(self, quick_deaths: int) -> float:
        return 0.0 if quick_deaths == 0 else min(self.first_s * 2 ** (quick_deaths - 1), self.cap_s)


@dataclass(frozen=True)
class ProcessSpec:
    service: str
    replica: int
    argv: Sequence[str]
    env: dict[str, str] = field(default_factory=dict)
    log_file: Path | None = None


@dataclass
class Child:
    spec: ProcessSpec
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    quick_deaths: int = 0
    started_at: float = 0.0
    started_wall: str = ""
    last_exit: int | None = None
    restart_at: float = 0.0

    def row(self) -> dict[str, object]:
        return {
            "service": self.spec.service,
            "replica": self.spec.replica,
            "pid": self.process.pid if self.process is not None and self.process.poll() is None else 0,
            "restarts": self.restarts,
            "started_at": self.started_wall,
            "last_exit": self.last_exit,
        }


def processes_file(home: Path) -> Path:
    return home / "processes.json"


def write_processes(home: Path, rows: list[dict[str, object]]) -> None:
    tmp = home / "processes.json.tmp"
    tmp.write_text(json.dumps({"supervisor_pid": os.getpid(), "processes": rows}, indent=1))
    os.replace(tmp, processes_file(home))


def read_processes(home: Path) -> list[dict[str, object]]:
    """The table of the running supervisor of this home; empty when none runs."""
    try:
        data = json.loads(processes_file(home).read_text())
        os.kill(int(data["supervisor_pid"]), 0)
    except (OSError, ValueError, KeyError):
        return []
    rows = data.get("processes", [])
    return rows if isinstance(rows, list) else []


class Supervisor:
    def __init__(
        self, home: Path, specs: Sequence[ProcessSpec], *, backoff: Backoff | None = None, poll_s: float = 0.2
    ) -> None:
        self._home = home
        self.children = [Child(spec) for spec in specs]
        self._backoff = backoff or Backoff()
        self._poll_s = poll_s
        self._stopping = asyncio.Event()
        self.on_restart: Callable[[Child], None] | None = None

    def _spawn(self, child: Child) -> None:
        spec = child.spec
        out = spec.log_file.open("ab") if spec.log_file is not None else subprocess.DEVNULL
        try:
            child.process = subprocess.Popen(
                list(spec.argv),
                env={**os.environ, **spec.env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal reaches the supervisor only
            )
        finally:
            if not isinstance(out, int):
                out.close()
        child.started_at = time.monotonic()
        child.started_wall = datetime.now(UTC).isoformat(timespec="seconds")
        log.info("process_started", process=spec.service, replica=spec.replica, pid=child.process.pid)

    def start(self) -> None:
        for child in self.children:
            self._spawn(child)
        self._publish()

    def _publish(self) -> None:
        write_processes(self._home, [c.row() for c in self.children])

    def check(self) -> bool:
        """One pass: notice exits, restart those whose delay passed. True when the table changed."""
        changed = False
        now = time.monotonic()
        for child in self.children:
            process = child.process
            if process is not None and process.poll() is not None:
                child.last_exit = process.returncode
                child.process = None
                lived = now - child.started_at
                child.quick_deaths = 1 if lived >= self._backoff.stable_after_s else child.quick_deaths + 1
                delay = self._backoff.delay(child.quick_deaths - 1)
                child.restart_at = now + delay
                log.warning(
                    "process_exited",
                    process=child.spec.service,
                    replica=child.spec.replica,
                    code=process.returncode,
                    lived_s=round(lived, 1),
                    restart_in_s=delay,
                )
                changed = True
            if child.process is None and now >= child.restart_at and not self._stopping.is_set():
                child.restarts += 1
                self._spawn(child)
                if self.on_restart is not None:
                    self.on_restart(child)
                changed = True
        if changed:
            self._publish()
        return changed

    async def watch(self) -> None:
        while not self._stopping.is_set():
            self.check()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self._poll_s)

    def stop(self, timeout_s: float = 10.0, *, last: str = "nats") -> None:
        """SIGTERM the services, then ``last`` (the server they need to drain); SIGKILL what lingers."""
        self._stopping.set()
        self._terminate([c for c in self.children if c.spec.service != last], timeout_s)
        self._terminate([c for c in self.children if c.spec.service == last], timeout_s)
        processes_file(self._home).unlink(missing_ok=True)

    @staticmethod
    def _terminate(children: list[Child], timeout_s: float) -> None:
        live = [c.process for c in children if c.process is not None and c.process.poll() is None]
        for process in live:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for process in live:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
