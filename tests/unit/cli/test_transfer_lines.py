"""The import client: every line checked before anything is sent, batches bounded by count and bytes."""

from __future__ import annotations

import json

import pytest

from codememory.cli.transfer import ImportError_, import_batches, parse_lines
from codememory.v1 import memory_pb2 as pb


def _line(**row: object) -> str:
    return json.dumps({"text": "a note", **row})


def test_every_exported_field_reaches_the_request() -> None:
    row = {
        "id": "3f1c9a52-7a0e-4a44-9d7f-0d0e7e0f1a11", "type": "decision", "repo": "r", "branch": "main",
        "user": "sam", "session": "s1", "agent": "codex", "paths": ["a.py"],
        "time": "2024-01-02T03:04:05+00:00", "tags": ["x"], "importance": 0.8, "metadata": {"k": "v"},
        "state": "deprecated",
    }  # fmt: skip
    (memory,) = parse_lines([_line(**row)])
    request = memory.memory
    assert (request.memory_id, request.type, request.agent, memory.state) == (
        row["id"],
        "decision",
        "codex",
        "deprecated",
    )
    assert (request.scope.repo, request.scope.branch, request.scope.user, request.scope.session_id) == (
        "r",
        "main",
        "sam",
        "s1",
    )
    assert (
        list(request.scope.paths) == ["a.py"]
        and list(request.tags) == ["x"]
        and dict(request.metadata) == {"k": "v"}
    )
    assert request.created_at == row["time"] and request.importance == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("not json", "line 2: not JSON"),
        ("[1]", "line 2: not a JSON object"),
        (_line(text=""), "line 2: each line needs a non-empty 'text'"),
        (_line(state="archived"), "line 2: state must be active or deprecated"),
        (_line(importance="high"), "line 2: could not convert"),
    ],
)
def test_a_bad_line_is_named(bad: str, message: str) -> None:
    with pytest.raises(ImportError_, match=message):
        parse_lines([_line(), bad, _line()])


def test_batches_are_bounded_and_only_the_first_asks_to_wait() -> None:
    memories = parse_lines([_line(text=f"note {i} " + "x" * 100) for i in range(25)])
    sent: list[int] = []
    requests = list(import_batches(memories, wait_embedded=True, batch=10, sent=sent.append))
    assert [len(r.memories) for r in requests] == [10, 10, 5] and sent == [10, 10, 5]
    assert [r.wait_embedded for r in requests] == [True, False, False]
    by_bytes = list(import_batches(memories, wait_embedded=False, batch=100, max_bytes=500))
    assert all(len(r.memories) <= 5 for r in by_bytes) and sum(len(r.memories) for r in by_bytes) == 25
    (empty,) = import_batches([], wait_embedded=True)
    assert empty == pb.ImportRequest(wait_embedded=True)
