"""The spool: ordered, at-least-once, never corrupted by concurrent hook processes."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from codememory.hookclient.spool import OK, REJECT, RETRY, Spool

Record = dict[str, object]


def rec(n: int) -> Record:
    return {"subject": "cm.hooks.local.claude.Stop", "msg_id": f"id{n}", "message": {"n": n}}


def lines(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [json.loads(line)["message"]["n"] for line in path.read_text().splitlines()]


class Recorder:
    """A sender that records what it was given and answers from a script (default OK)."""

    def __init__(self, answers: dict[int, str] | None = None) -> None:
        self.sent: list[int] = []
        self.answers = answers or {}

    def __call__(self, records: Sequence[Record]) -> list[str]:
        out = []
        for record in records:
            message = record["message"]
            assert isinstance(message, dict)
            self.sent.append(message["n"])
            out.append(self.answers.get(message["n"], OK))
        return out


def far() -> float:
    return time.monotonic() + 60


def test_append_and_drain_in_order(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path / "spool" / "hooks.jsonl"))
    assert not spool.has_pending()
    assert spool.append([rec(1), rec(2)])
    assert spool.append([rec(3)])
    assert spool.has_pending()
    sender = Recorder()
    result = spool.drain(sender, deadline=far(), batch=2, tail=[rec(4)])
    assert result is not None
    assert sender.sent == [1, 2, 3, 4]
    assert (result.flushed, result.remaining, result.rejected, result.tail_sent) == (3, 0, 0, True)
    assert not spool.has_pending()


def test_retry_keeps_the_unacked_rest_and_the_tail_in_order(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    spool = Spool(str(path))
    spool.append([rec(n) for n in range(1, 7)])
    sender = Recorder({3: RETRY})
    result = spool.drain(sender, deadline=far(), batch=2, tail=[rec(99)])
    assert result is not None
    assert sender.sent == [1, 2, 3, 4]  # the batch holding 3 went out whole, then draining stopped
    assert lines(path) == [3, 5, 6, 99]  # 4 was acked, so it is gone; nothing lost, order kept
    assert (result.flushed, result.remaining, result.tail_sent) == (3, 4, False)


def test_rejected_lines_move_aside(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    spool = Spool(str(path))
    spool.append([rec(1), rec(2)])
    with path.open("ab") as fh:
        fh.write(b'{"torn line\n')
    result = spool.drain(Recorder({1: REJECT}), deadline=far())
    assert result is not None and result.rejected == 2 and result.flushed == 1
    assert not path.exists()
    rejected = Path(str(path) + ".rejected").read_text().splitlines()
    assert len(rejected) == 2 and json.loads(rejected[0])["msg_id"] == "id1"


def test_budget_and_deadline_leave_the_rest_for_later(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    spool = Spool(str(path))
    spool.append([rec(n) for n in range(10)])
    sender = Recorder()
    result = spool.drain(sender, deadline=far(), max_messages=4, batch=3, tail=[rec(99)])
    assert result is not None and result.flushed == 4 and not result.tail_sent
    assert lines(path) == [4, 5, 6, 7, 8, 9, 99]
    result = spool.drain(sender, deadline=time.monotonic() - 1)
    assert result is not None and result.flushed == 0
    assert lines(path) == [4, 5, 6, 7, 8, 9, 99]


def test_drain_skips_when_another_process_holds_the_spool(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    spool = Spool(str(path))
    spool.append([rec(1)])
    fd = os.open(str(path) + ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert spool.drain(Recorder(), deadline=far()) is None
    finally:
        os.close(fd)
    assert lines(path) == [1]


def test_append_refuses_past_max_bytes(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path / "hooks.jsonl"), max_bytes=200)
    assert spool.append([rec(1)])
    assert not spool.append([{"subject": "s", "msg_id": "m", "message": {"x": "y" * 300}}])


def _append_many(path: str, worker: int, count: int) -> None:
    spool = Spool(path)
    for i in range(count):
        spool.append(
            [{"subject": "s", "msg_id": f"{worker}-{i}", "message": {"pad": "p" * (i * 997 % 50_000)}}]
        )


def test_concurrent_appends_from_processes_and_a_drainer_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "hooks.jsonl")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append_many, args=(path, w, 40)) for w in range(4)]
    drained: list[str] = []

    def drain_repeatedly() -> None:
        spool = Spool(path)
        while any(w.is_alive() for w in workers) or spool.has_pending():
            spool.drain(
                lambda rs: [drained.append(str(r["msg_id"])) or OK for r in rs], deadline=far(), batch=7
            )
            time.sleep(0.002)

    for w in workers:
        w.start()
    drainer = threading.Thread(target=drain_repeatedly)
    drainer.start()
    for w in workers:
        w.join(30)
    drainer.join(30)
    assert sorted(drained) == sorted(f"{w}-{i}" for w in range(4) for i in range(40))
    for w in range(4):  # each writer's messages come out in the order it wrote them
        mine = [int(d.split("-")[1]) for d in drained if d.startswith(f"{w}-")]
        assert mine == sorted(mine)


def test_concurrent_appends_from_threads_stay_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    threads = [threading.Thread(target=_append_many, args=(str(path), w, 25)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["msg_id"] for r in records) == sorted(f"{w}-{i}" for w in range(6) for i in range(25))


def test_a_failing_sender_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "hooks.jsonl"
    spool = Spool(str(path))
    spool.append([rec(1), rec(2)])

    def broken(records: Sequence[Record]) -> list[str]:
        raise RuntimeError("boom")

    result = spool.drain(broken, deadline=far(), tail=[rec(3)])
    assert result is not None and result.flushed == 0
    assert lines(path) == [1, 2, 3]
