"""Streaming code facts to RecordCode: a failure while the facts are produced is one typed error."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from codememory.cli.client import Connection
from codememory.cli.indexing import record_in_streams
from codememory.cli.recording import FactStreamError, record, repository_of
from codememory.codefacts import CodeFact, decode_fact
from codememory.events import FileDeleted
from codememory.githistory import UnknownRevisionError
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc, memory_pb2_grpc


class Recorder(code_pb2_grpc.CodeServiceServicer):
    """RecordCode as the gateway's contract has it: all or nothing, counted only at the end."""

    def __init__(self) -> None:
        self.recorded: list[CodeFact] = []

    def RecordCode(
        self, request_iterator: Iterator[cpb.CodeFact], context: grpc.ServicerContext
    ) -> cpb.RecordCodeResponse:
        batch = [decode_fact(m.event_json) for m in request_iterator]
        self.recorded.extend(batch)
        return cpb.RecordCodeResponse(recorded=len(batch))


@pytest.fixture
def served() -> Iterator[tuple[Connection, Recorder]]:
    recorder = Recorder()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    code_pb2_grpc.add_CodeServiceServicer_to_server(recorder, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        conn = Connection(
            memory_pb2_grpc.MemoryServiceStub(channel), code_pb2_grpc.CodeServiceStub(channel), (), 10.0
        )
        yield conn, recorder
    server.stop(None)


def facts(fail: bool) -> Iterator[CodeFact]:
    yield FileDeleted(repo="r", path="a.py")
    if fail:
        raise UnknownRevisionError("0123abcd")
    yield FileDeleted(repo="r", path="b.py")


def test_facts_are_recorded(served: tuple[Connection, Recorder]) -> None:
    conn, recorder = served
    assert record(conn, facts(fail=False)) == 2
    assert [f.path for f in recorder.recorded if isinstance(f, FileDeleted)] == ["a.py", "b.py"]


def test_a_failure_while_streaming_is_the_cause_not_a_grpc_unknown(
    served: tuple[Connection, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    conn, recorder = served
    with pytest.raises(FactStreamError) as caught:
        record(conn, facts(fail=True))
    assert "unknown revision: '0123abcd'" in str(caught.value)
    assert isinstance(caught.value.__cause__, UnknownRevisionError)
    assert recorder.recorded == []  # the call was cancelled: nothing recorded
    assert "iterating requests" not in caplog.text


def test_a_folder_outside_git_is_named_by_its_path(tmp_path: Path) -> None:
    if any((p / ".git").exists() for p in [tmp_path, *tmp_path.parents]):
        pytest.skip("tmp dir is inside a git repo")
    (tmp_path / "app").mkdir()
    assert repository_of(tmp_path / "app") == (
        str((tmp_path / "app").resolve()),
        (tmp_path / "app").resolve(),
    )


class Overlapping(Recorder):
    """Holds the first stream's answer until a second stream was all received (or 5 s passed)."""

    def __init__(self) -> None:
        super().__init__()
        self.second_arrived = threading.Event()
        self.overlapped = False
        self.streams: list[list[str]] = []
        self._lock = threading.Lock()

    def RecordCode(
        self, request_iterator: Iterator[cpb.CodeFact], context: grpc.ServicerContext
    ) -> cpb.RecordCodeResponse:
        batch = [decode_fact(m.event_json) for m in request_iterator]
        with self._lock:
            self.streams.append([f.path for f in batch if isinstance(f, FileDeleted)])
            first = len(self.streams) == 1
        if first:
            self.overlapped = self.second_arrived.wait(5.0)
        else:
            self.second_arrived.set()
        return cpb.RecordCodeResponse(recorded=len(batch))


def test_streams_overlap_grow_and_add_up() -> None:
    recorder = Overlapping()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    code_pb2_grpc.add_CodeServiceServicer_to_server(recorder, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            conn = Connection(
                memory_pb2_grpc.MemoryServiceStub(channel), code_pb2_grpc.CodeServiceStub(channel), (), 10.0
            )
            found = (FileDeleted(repo="r", path=f"f{i}.py") for i in range(10))
            assert record_in_streams(conn, found, per_stream=3, in_flight=2) == 10
    finally:
        server.stop(None)
    assert recorder.overlapped  # the second stream was recorded while the first was still being applied
    sizes = [0, 1, 3, 6, 9, 10]  # the first streams smaller (a quarter, then doubling up to 3)
    # two streams in flight may finish arriving in either order: each is one contiguous run of the facts
    assert sorted(recorder.streams) == [
        [f"f{i}.py" for i in range(a, b)] for a, b in itertools.pairwise(sizes)
    ]
