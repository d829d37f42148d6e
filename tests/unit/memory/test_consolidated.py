"""Consolidation events folded into the memory projection: links both ways, history, and replay equality."""

from __future__ import annotations

import uuid
from pathlib import Path

from codememory.events import (
    Envelope,
    ImportanceAdjustment,
    ImportanceDecayed,
    InsightDerived,
    MemoriesArchived,
    MemoriesLinked,
    MemoriesMerged,
    MemoriesUnmerged,
    MemoryLinks,
    MemoryScope,
    MemorySource,
    MemoryStored,
    MemorySuperseded,
    new_envelope,
)
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, memory_id_of, point_ids
from codememory.memory.consolidated import merge_takes
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest

A, B, C, D = (str(uuid.UUID(int=i)) for i in (1, 2, 3, 4))


def _projection(path: Path) -> MemoryProjection:
    return MemoryProjection(EdgeVectorIndex(path / "shard", 8), SparseEncoder(), Position(path / "pos.json"))


def _env(event: object, tenant: str = "t") -> Envelope:
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant=tenant)  # type: ignore[arg-type]


def _history() -> list[tuple[int, Envelope]]:
    scope = MemoryScope(repo="r")
    events = [
        MemoryStored(memory_id=A, text="Use 4 spaces", scope=scope, importance=0.4),
        MemoryStored(memory_id=B, text="Use 2 spaces from now on", scope=scope),
        MemoryStored(memory_id=C, text="lint with ruff", scope=scope, importance=0.9),
        MemoryStored(memory_id=D, text="we lint with ruff", scope=scope),
        MemorySuperseded(memory_id=A, superseded_by=B, superseded_at=123.0, reason="a later decision"),
        MemoriesMerged(
            canonical_id=D,
            merged_ids=(C,),
            sources=(MemorySource(memory_id=C, session_id="s", created_at=456.0),),
            importance=0.9,
        ),
        MemoriesLinked(links=(MemoryLinks(memory_id=B, neighbours=(D,), code=("setup.cfg",)),)),
        ImportanceDecayed(adjustments=(ImportanceAdjustment(memory_id=B, importance=0.2),)),
        MemoriesArchived(memory_ids=(A,), reason="expired"),
    ]
    return [(seq, _env(event)) for seq, event in enumerate(events, start=1)]


def _payloads(projection: MemoryProjection) -> dict[str, dict[str, object]]:
    return {memory_id_of(p): dict(p.payload) for p in projection.index.get(point_ids("t", [A, B, C, D]))}


def test_consolidation_events_link_memories_both_ways(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    projection.apply_batch(_history())
    p = _payloads(projection)
    assert p[B]["supersedes"] == [A] and p[B]["links"] == [D] and p[B]["code_links"] == ["setup.cfg"]
    assert p[A]["superseded_by"] == B and p[A]["superseded_at"] == 123.0 and p[A]["state"] == "archived"
    assert p[C]["state"] == "merged" and p[C]["merged_into"] == D
    assert p[D]["restated"] == 2 and p[D]["importance"] == 0.9 and p[D]["last_stated"] == 456.0
    assert [s["memory_id"] for s in p[D]["sources"]] == [C]  # type: ignore[attr-defined]
    assert p[B]["importance"] == 0.2
    events = [e["event"] for e in p[A]["history"]]  # type: ignore[attr-defined]
    assert events == ["memory.superseded", "memories.archived"]


def test_a_merge_folded_twice_counts_its_sources_once_and_replay_is_equal(tmp_path: Path) -> None:
    live = _projection(tmp_path / "live")
    history = _history()
    live.apply_batch(history)
    merge_again = (len(history) + 1, _env(history[5][1].payload))
    live.apply_batch([merge_again])
    assert _payloads(live)[D]["restated"] == 2
    rebuilt = _projection(tmp_path / "rebuilt")
    rebuilt.apply_batch([*history, merge_again])
    assert index_digest(rebuilt.index, IndexFilter()) == index_digest(live.index, IndexFilter())


def test_an_unmerge_makes_the_restatement_active_again_and_leaves_the_sources(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    history = _history()
    unmerged = MemoriesUnmerged(canonical_id=D, memory_ids=(C,), reason="not the same rule")
    projection.apply_batch([*history, (len(history) + 1, _env(unmerged))])
    p = _payloads(projection)
    assert p[C]["state"] == "active" and "merged_into" not in p[C]
    assert p[D]["restated"] == 1 and p[D]["sources"] == [] and p[D]["last_stated"] == 0.0
    assert p[C]["history"][-1]["reason"] == "not the same rule"  # type: ignore[index]


def test_another_tenants_consolidation_changes_nothing(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    projection.apply_batch(_history()[:4])
    projection.apply_batch([(5, _env(MemorySuperseded(memory_id=A, superseded_by=B), tenant="intruder"))])
    assert _payloads(projection)[A]["state"] == "active"


def test_an_insight_is_no_turn_of_its_session_and_carries_its_evidence(tmp_path: Path) -> None:
    """A derived memory takes no predecessor (its lexical text would carry whatever the session said
    last) and is no predecessor of the session's next memory, live and after a restart alike."""
    scope = MemoryScope(repo="r", session_id="s")
    insight_id = str(uuid.UUID(int=9))
    events = [
        MemoryStored(memory_id=A, text="seed everything with 42", scope=scope),
        InsightDerived(
            insight_id=insight_id,
            kind="convention",
            title="lint with ruff",
            evidence_ids=(C, D),
            session_id="s",
            repo="r",
        ),
        MemoryStored(memory_id=B, text="the tests pass", scope=scope),
    ]
    batch = [(seq, _env(e)) for seq, e in enumerate(events, start=1)]
    live = _projection(tmp_path / "live")
    live.apply_batch(batch)
    first = _projection(tmp_path / "restarted")
    first.apply_batch(batch[:2])
    first.index.close()
    restarted = _projection(tmp_path / "restarted")  # no remembered tails: found in the index
    restarted.apply_batch(batch[2:])
    for projection in (live, restarted):
        payloads = {
            memory_id_of(p): dict(p.payload) for p in projection.index.get(point_ids("t", [A, B, insight_id]))
        }
        assert payloads[insight_id]["context"] == "" and payloads[insight_id]["previous_id"] == ""
        assert payloads[insight_id]["metadata"] == {"kind": "convention", "evidence": f"{C},{D}"}
        assert payloads[B]["previous_id"] == A and payloads[B]["context"] == "seed everything with 42"


def test_when_a_hand_merge_and_a_cycles_race_for_a_memory_the_first_in_log_keeps_it(tmp_path: Path) -> None:
    """Both merges were valid when made; C went to D first, so the later merge into B leaves C out of
    its sources, takes A alone, and replay (one event per batch) folds the same."""
    scope = MemoryScope(repo="r")
    stored = [MemoryStored(memory_id=m, text=f"memory {m}", scope=scope) for m in (A, B, C, D)]
    into_d = MemoriesMerged(canonical_id=D, merged_ids=(C,), sources=(MemorySource(memory_id=C),))
    into_b = MemoriesMerged(
        canonical_id=B, merged_ids=(C, A), sources=(MemorySource(memory_id=C), MemorySource(memory_id=A))
    )
    into_c = MemoriesMerged(canonical_id=C, merged_ids=(A,), sources=(MemorySource(memory_id=A),))
    history = [(seq, _env(e)) for seq, e in enumerate([*stored, into_d, into_b, into_c], start=1)]
    live = _projection(tmp_path / "live")
    live.apply_batch(history)
    p = _payloads(live)
    assert p[C]["state"] == "merged" and p[C]["merged_into"] == D  # the first merge kept it
    assert p[A]["state"] == "merged" and p[A]["merged_into"] == B
    assert [s["memory_id"] for s in p[B]["sources"]] == [A] and p[B]["restated"] == 2  # type: ignore[attr-defined]
    assert [s["memory_id"] for s in p[D]["sources"]] == [C] and p[D]["restated"] == 2  # type: ignore[attr-defined]
    assert "sources" not in p[C]  # a merge into a memory merged already takes nothing
    replayed = _projection(tmp_path / "replayed")
    for record in history:
        replayed.apply_batch([record])
    assert index_digest(replayed.index, IndexFilter()) == index_digest(live.index, IndexFilter())


def test_merge_takes_what_still_stands() -> None:
    standing = {
        A: ("active", ""),
        B: ("merged", D),
        C: ("superseded", ""),
        D: ("active", ""),
    }
    event = MemoriesMerged(canonical_id=D, merged_ids=(A, B, C, A, str(uuid.UUID(int=9))))
    assert merge_takes(event, standing.get) == (A, B)  # B is D's already; C is history; 9 unknown
    assert merge_takes(MemoriesMerged(canonical_id=B, merged_ids=(A,)), standing.get) == ()
    assert merge_takes(MemoriesMerged(canonical_id=C, merged_ids=(A,)), standing.get) == ()
    assert merge_takes(MemoriesMerged(canonical_id=A, merged_ids=(D,)), standing.get) == (D,)
