"""An imported memory comes back in the state it was exported in: archived, superseded by, merged into.

Over an in-memory log and a real Edge shard (``corestack``): the import's events are folded by the
projection as a cycle's or a person's are, so export, recall and history see what the exporting store had.
"""

from __future__ import annotations

import uuid

import pytest
from corestack import export_rows  # type: ignore[import-not-found]

from codememory.events import MemoriesMerged, MemoryScope, MemoryStored, MemorySuperseded, decode_envelope
from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.importing import ImportedMemory, ImportRun
from codememory.gateway.importlinks import ImportLinks, check_state
from codememory.gateway.writes import NewMemory
from codememory.memorylines import StateOf
from codememory.recall import RecallQuery

IDS = {name: str(uuid.uuid4()) for name in ("c", "m1", "m2", "old", "new", "c2", "m3", "n2", "a", "d", "m4")}
UNKNOWN = str(uuid.uuid4())


def _memory(name: str, text: str, day: int, state: StateOf | None = None) -> ImportedMemory:
    memory = NewMemory(
        text=text,
        memory_id=IDS[name],
        memory_type="decision",
        scope=MemoryScope(repo="r", session_id=f"s{day}"),
        created_at=f"2024-03-{day:02d}T09:00:00+00:00",
    )
    return ImportedMemory(memory=memory, state=state or StateOf())


def _stream() -> list[ImportedMemory]:
    """A store's export, restatements before the memory they were merged into (either end may come first)."""
    merged_into, into_c2 = (StateOf(state="merged", merged_into=IDS[c]) for c in ("c", "c2"))
    return [
        _memory("m1", "reminder: pin every dependency with uv lock", 1, merged_into),
        _memory("old", "the payments API retries 3 times with backoff", 2, StateOf(
            state="superseded", superseded_by=IDS["new"], superseded_at=1710000000.0
        )),
        _memory("c", "we pin every dependency with uv lock", 3),
        _memory("m2", "again, pin dependencies with the uv lock file", 4, merged_into),
        _memory("new", "the payments API now retries 5 times with backoff", 5),
        # a canonical memory superseded after its restatement was merged into it: merges come first
        _memory("m3", "deploy on Tuesdays, as said before", 6, into_c2),
        _memory("c2", "we deploy on Tuesdays", 7, StateOf(state="superseded", superseded_by=IDS["n2"])),
        _memory("n2", "we now deploy on Thursdays", 8),
        _memory("a", "Read Makefile: lint: ruff check", 9, StateOf(state="archived")),
        _memory("d", "the staging cluster is in eu-west-1", 10, StateOf(state="deprecated")),
        _memory("m4", "logs go to loki", 11, StateOf(state="merged", merged_into=UNKNOWN)),
    ]  # fmt: skip


async def _import(core: GatewayCore, memories: list[ImportedMemory]) -> tuple[int, int]:
    """Memories stored, and memories put in their exported state."""
    run = ImportRun("t1", core.live, core.event_log, core.clean)
    await run.add(memories[:4])
    await run.add(memories[4:])
    tally = await run.finish(wait_embedded=False, timeout_s=10)
    return tally.stored, tally.states


async def test_states_and_links_come_back_as_exported(core: GatewayCore) -> None:
    assert await _import(core, _stream()) == (11, 7)  # 3 merged, 2 superseded, archived, deprecated
    rows = {row["memory_id"]: row for row in await export_rows(core, "t1")}
    state = {name: rows[IDS[name]]["state"] for name in IDS}
    assert state == {
        "c": "active", "m1": "merged", "m2": "merged", "old": "superseded", "new": "active",
        "c2": "superseded", "m3": "merged", "n2": "active", "a": "archived", "d": "deprecated",
        "m4": "active",  # merged into a memory neither imported nor stored: the merge takes nothing
    }  # fmt: skip
    canonical = rows[IDS["c"]]
    assert canonical["restated"] == 3 and [s["memory_id"] for s in canonical["sources"]] == [
        IDS["m1"],
        IDS["m2"],
    ]
    assert canonical["sources"][0]["session_id"] == "s1"
    assert canonical["sources"][0]["created_at"] == pytest.approx(1709283600.0)  # 2024-03-01T09:00Z
    assert rows[IDS["m1"]]["merged_into"] == IDS["c"] and rows[IDS["m3"]]["merged_into"] == IDS["c2"]
    assert rows[IDS["c2"]]["restated"] == 2 and rows[IDS["c2"]]["superseded_by"] == IDS["n2"]
    old = rows[IDS["old"]]
    assert old["superseded_by"] == IDS["new"] and old["superseded_at"] == 1710000000.0
    assert rows[IDS["new"]]["supersedes"] == [IDS["old"]]

    hits = await core.recall(RecallQuery(tenant="t1", text="how many times does the payments API retry"))
    order = [h.memory_id for h in hits]
    assert IDS["new"] in order and (
        IDS["old"] not in order or order.index(IDS["new"]) < order.index(IDS["old"])
    )
    pinned = [
        h.memory_id for h in await core.recall(RecallQuery(tenant="t1", text="pin dependencies uv lock"))
    ]
    assert IDS["c"] in pinned and IDS["m1"] not in pinned and IDS["m2"] not in pinned


async def test_importing_the_same_stream_again_makes_nothing_twice(core: GatewayCore) -> None:
    await _import(core, _stream())
    records = len(core.event_log.records)  # type: ignore[attr-defined]
    assert await _import(core, _stream()) == (0, 0)
    assert len(core.event_log.records) == records  # type: ignore[attr-defined]
    assert {row["memory_id"]: row for row in await export_rows(core, "t1")}[IDS["c"]]["restated"] == 3


async def test_the_links_are_appended_after_every_memory_merges_first(core: GatewayCore) -> None:
    await _import(core, _stream())
    events = [decode_envelope(r.data).payload for r in core.event_log.records]  # type: ignore[attr-defined]
    last_stored = max(i for i, e in enumerate(events) if isinstance(e, MemoryStored))
    links = events[last_stored + 1 :]
    # no merge into the memory neither the stream nor the store has
    assert [type(e) for e in links] == [MemoriesMerged] * 2 + [MemorySuperseded] * 2
    assert all(e.reason == "imported" and not e.cycle_id for e in links)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (StateOf(state="forgotten"), "state must be one of"),
        (StateOf(state="superseded"), "needs superseded_by"),
        (StateOf(state="merged", merged_into="nope"), "merged_into must be a memory id"),
        (StateOf(state="superseded", superseded_by=IDS["c"]), "cannot be superseded by itself"),
    ],
)
async def test_a_state_without_what_it_needs_is_refused_with_the_memory_number(
    core: GatewayCore, state: StateOf, message: str
) -> None:
    run = ImportRun("t1", core.live, core.event_log, core.clean)
    with pytest.raises(InvalidArgument, match=f"memory 2: .*{message}"):
        await run.add([_memory("m1", "fine", 1), _memory("c", "the rule", 2, state)])
    assert not core.event_log.records  # type: ignore[attr-defined]


def test_a_link_is_canonical_and_kept_only_with_its_state() -> None:
    upper = IDS["new"].upper()
    assert (
        check_state(1, IDS["old"], StateOf(state="superseded", superseded_by=upper)).superseded_by
        == IDS["new"]
    )
    assert check_state(1, IDS["old"], StateOf(state="active", merged_into=IDS["c"])) == StateOf(
        state="active"
    )
    links = ImportLinks("t1")
    stored = MemoryStored(memory_id=IDS["m1"], text="x")
    assert links.now(stored, StateOf(state="merged", merged_into=IDS["c"])) == []
    assert links.canonical_ids() == [IDS["c"]] and links.at_end(set()) == []  # into nothing known
    assert links.now(stored, StateOf(state="merged", merged_into=IDS["c"])) == []  # given its state once
    links = ImportLinks("t1")
    links.now(stored, StateOf(state="merged", merged_into=IDS["c"]))
    assert len(links.at_end({IDS["c"]})) == 1 and links.at_end({IDS["c"]}) == []  # made once


async def test_an_import_cut_short_before_its_states_gets_them_when_run_again(core: GatewayCore) -> None:
    """The memories are in, still active (the stream failed before its end): the same file again."""
    stream = _stream()
    await _import(core, [ImportedMemory(memory=m.memory) for m in stream])
    assert {row["state"] for row in await export_rows(core, "t1")} == {"active"}
    assert await _import(core, stream) == (0, 7)
    rows = {row["memory_id"]: row for row in await export_rows(core, "t1")}
    assert rows[IDS["old"]]["superseded_by"] == IDS["new"] and rows[IDS["m1"]]["merged_into"] == IDS["c"]
    assert rows[IDS["c"]]["restated"] == 3 and rows[IDS["a"]]["state"] == "archived"


async def test_a_merge_chain_is_made_innermost_first(core: GatewayCore) -> None:
    """A into B into C, B the oldest (a cycle merged a lesser canonical memory into a better one)."""
    chain = [
        _memory("m1", "B: pin dependencies", 1, StateOf(state="merged", merged_into=IDS["c"])),
        _memory("m2", "A: pin the deps", 2, StateOf(state="merged", merged_into=IDS["m1"])),
        _memory("c", "C: we pin every dependency with uv lock", 3),
    ]
    assert await _import(core, chain) == (3, 2)
    state = {
        row["memory_id"]: (row["state"], row.get("merged_into")) for row in await export_rows(core, "t1")
    }
    assert state == {
        IDS["m2"]: ("merged", IDS["m1"]),
        IDS["m1"]: ("merged", IDS["c"]),
        IDS["c"]: ("active", None),
    }


async def test_a_memory_named_twice_is_given_its_state_once(core: GatewayCore) -> None:
    """m1 again in a later batch, once the first is folded: found in the store, active and untouched."""
    stream = _stream()
    run = ImportRun("t1", core.live, core.event_log, core.clean)
    await run.add(stream)
    await run._appended()
    assert await core.live.wait_for(run.tally.last_seq, 5.0)
    await run.add([stream[0]])
    tally = await run.finish(wait_embedded=False, timeout_s=10)
    assert (tally.stored, tally.existing, tally.states) == (11, 1, 7)
    assert {row["memory_id"]: row for row in await export_rows(core, "t1")}[IDS["c"]]["restated"] == 3


async def test_a_memory_unmerged_since_is_not_merged_again_by_the_same_file(core: GatewayCore) -> None:
    await _import(core, _stream())
    await core.unmerge("t1", IDS["c"], [IDS["m1"]], "not the same rule")
    assert await _import(core, _stream()) == (0, 0)
    rows = {row["memory_id"]: row for row in await export_rows(core, "t1")}
    assert rows[IDS["m1"]]["state"] == "active" and rows[IDS["c"]]["restated"] == 2


async def test_no_merge_into_a_forgotten_memory(core: GatewayCore) -> None:
    gone = (await core.store("t1", NewMemory(text="a rule since forgotten", memory_id=IDS["c"]))).memory_id
    await core.forget("t1", gone, "wrong")
    line = _memory("m1", "a restatement of it", 1, StateOf(state="merged", merged_into=gone))
    assert await _import(core, [line]) == (1, 0)
    assert [row["state"] for row in await export_rows(core, "t1")] == ["active"]
