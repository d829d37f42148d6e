"""BrowseService's listing over a real Qdrant Edge shard: filters by type, repo, session, time and
state, newest first with a total; sessions grouped; another tenant's memories never listed; and
LOG records turned into rows (a record of another tenant refused, an undecodable one still listed)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from codememory.events import MemoryEmbedded, MemoryScope, MemoryStored, encode_envelope, new_envelope
from codememory.gateway.browsing import MemoryQuery, list_memories, list_sessions
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.logpages import entry
from codememory.vectorstore import EdgeVectorIndex, IndexPoint

ROWS = [  # tenant, type, repo, session, created_at, state
    ("t1", "note", "r1", "s1", 100.0, "active"),
    ("t1", "decision", "r1", "s1", 200.0, "superseded"),
    ("t1", "prompt", "r2", "s2", 300.0, "active"),
    ("t1", "note", "r2", "s2", 400.0, "forgotten"),
    ("t2", "note", "r1", "s1", 500.0, "active"),
]


@pytest.fixture
def index(tmp_path: Path) -> EdgeVectorIndex:
    shard = EdgeVectorIndex(tmp_path / "shard", 4)
    shard.upsert(
        [
            IndexPoint(
                id=str(uuid.UUID(int=n + 1)),
                payload={
                    "memory_id": str(uuid.UUID(int=n + 1)),
                    "tenant": tenant,
                    "type": kind,
                    "repo": repo,
                    "session_id": session,
                    "created_at": created,
                    "state": state,
                    "text": f"memory {n}",
                    "agent": "claude",
                },
            )
            for n, (tenant, kind, repo, session, created, state) in enumerate(ROWS)
        ]
    )
    return shard


def texts(index: EdgeVectorIndex, **query: object) -> tuple[list[str], int]:
    rows, total = list_memories(index, MemoryQuery(tenant="t1", **query))  # type: ignore[arg-type]
    return [str(r["text"]) for r in rows], total


def test_memories_are_listed_newest_first_without_forgotten_or_other_tenants(index: EdgeVectorIndex) -> None:
    assert texts(index) == (["memory 2", "memory 1", "memory 0"], 3)


def test_every_filter_narrows_the_listing(index: EdgeVectorIndex) -> None:
    assert texts(index, types=["note"]) == (["memory 0"], 1)
    assert texts(index, repo="r2") == (["memory 2"], 1)
    assert texts(index, session_id="s1") == (["memory 1", "memory 0"], 2)
    assert texts(index, since=150.0, until=350.0) == (["memory 2", "memory 1"], 2)
    assert texts(index, states=["superseded"]) == (["memory 1"], 1)
    assert texts(index, limit=1, offset=1) == (["memory 1"], 3)  # a page, and the total of every match


def test_bad_filters_are_typed_errors(index: EdgeVectorIndex) -> None:
    with pytest.raises(InvalidArgument, match="unknown state"):
        texts(index, states=["forgotten"])
    with pytest.raises(InvalidArgument, match="since is after until"):
        texts(index, since=10.0, until=5.0)
    with pytest.raises(InvalidArgument):
        texts(index, limit=-1)


def test_sessions_are_grouped_with_their_span_and_types(index: EdgeVectorIndex) -> None:
    sessions = list_sessions(index, "t1")
    assert [s.session_id for s in sessions] == ["s2", "s1"]  # the latest activity first
    s1 = sessions[1]
    assert (s1.started_at, s1.last_at, s1.memories, s1.repo) == (100.0, 200.0, 2, "r1")
    assert dict(s1.types) == {"note": 1, "decision": 1}
    assert list_sessions(index, "t2")[0].memories == 1  # t2 sees only its own
    assert [s.session_id for s in list_sessions(index, "t1", repo="r2")] == ["s2"]


def stored(tenant: str) -> bytes:
    payload = MemoryStored(memory_id="m1", text="hello", memory_type="note", scope=MemoryScope(repo="r"))
    envelope = new_envelope(
        payload, event_id="e1", tenant=tenant, occurred_at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    return encode_envelope(envelope)


def test_log_records_become_rows_only_for_their_tenant() -> None:
    row = entry(7, "cm.log.t1.memory.stored", stored("t1"), "t1")
    assert row is not None and (row.seq, row.event, row.event_id) == (7, "memory.stored", "e1")
    assert '"text":"hello"' in row.summary and row.occurred_at == datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    assert entry(8, "cm.log.t1.memory.stored", stored("t2"), "t1") is None  # an envelope of another tenant
    vectors = MemoryEmbedded(memory_id="m1", model="m", text_digest="d", vector=(0.5,) * 384)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    data = encode_envelope(new_envelope(vectors, event_id="e2", tenant="t1", occurred_at=at))
    row = entry(10, "cm.log.t1.memory.embedded", data, "t1")
    assert row is not None and '"vector":"[384 numbers]"' in row.summary  # what happened, not the floats
    broken = entry(9, "cm.log.t1.memory.stored", b"{not json", "t1")
    assert broken is not None and broken.event == "memory.stored" and "cannot be decoded" in broken.summary
