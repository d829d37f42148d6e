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


OTHER = "9b2e4c1d-0f3a-4e5b-8c6d-7a8b9c0d1e2f"


@pytest.mark.parametrize(
    ("row", "links"),
    [
        ({"state": "superseded", "superseded_by": OTHER, "superseded_at": "2024-02-01T00:00:00+00:00"},
         ("superseded", OTHER, 1706745600.0, "")),
        ({"state": "superseded", "superseded_by": OTHER}, ("superseded", OTHER, 0.0, "")),
        ({"state": "merged", "merged_into": OTHER, "superseded_by": "ignored"}, ("merged", "", 0.0, OTHER)),
        ({"state": "archived"}, ("archived", "", 0.0, "")),
        ({"state": "active", "merged_into": OTHER}, ("active", "", 0.0, "")),  # a link only with its state
    ],
)  # fmt: skip
def test_a_state_and_what_it_points_to_reach_the_request(
    row: dict[str, object], links: tuple[object, ...]
) -> None:
    (memory,) = parse_lines([_line(**row)])
    assert (memory.state, memory.superseded_by, memory.superseded_at, memory.merged_into) == links


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("not json", "line 2: not JSON"),
        ("[1]", "line 2: not a JSON object"),
        (_line(text=""), "line 2: each line needs a non-empty 'text'"),
        (_line(state="forgotten"), "line 2: state must be one of active, deprecated, archived, superseded"),
        (_line(state="superseded"), "line 2: a superseded memory needs superseded_by"),
        (_line(state="merged", superseded_by=OTHER), "line 2: a merged memory needs merged_into"),
        (
            _line(state="superseded", superseded_by=OTHER, superseded_at="May 3"),
            "line 2: superseded_at is not",
        ),
        (_line(state="merged", merged_into="the api client one"), "line 2: merged_into must be a memory id"),
        (
            _line(state="superseded", superseded_by=OTHER, id=OTHER.upper()),
            "line 2: superseded_by names the memory itself",
        ),
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
