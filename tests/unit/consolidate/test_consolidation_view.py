from consolidatekit import Log, unit  # type: ignore[import-not-found]

from codememory.consolidate.view import ConsolidationView
from codememory.events import (
    MemoriesMerged,
    MemoriesRecalled,
    MemoryAccess,
    MemoryForgotten,
    MemorySuperseded,
    SessionEnded,
    ToolFailed,
)


def test_memories_get_their_vectors_and_later_states() -> None:
    log = Log()
    a = log.stored("Use 4 spaces", unit(1))
    b = log.stored("Use 2 spaces", unit(1, 1))
    c = log.stored("Use ruff", unit(0, 1))
    log.add(MemorySuperseded(memory_id=a, superseded_by=b))
    log.add(MemoriesMerged(canonical_id=b, merged_ids=(c,)))
    log.add(MemoriesRecalled(accesses=(MemoryAccess(memory_id=b, at=5.0),)))
    view = ConsolidationView()
    assert view.apply_batch(log.records) == len(log.records)
    memories = view.tenant("t").memories
    assert memories[a].state == "superseded" and memories[c].state == "merged"
    assert memories[b].restated == 2 and memories[b].accesses == 1 and memories[b].vector is not None
    assert view.apply_batch(log.records) == 0  # applied once: its position moved past them


def test_forgetting_removes_a_memory_and_sessions_collect_their_steps() -> None:
    log = Log()
    a = log.stored("remember this", unit(1))
    log.add(
        ToolFailed(
            session_id="s1", agent="claude", tool="Bash", kind="shell", command="make test", error="boom"
        )
    )
    failed_at = log.clock
    log.add(SessionEnded(session_id="s1", agent="claude"))
    log.add(MemoryForgotten(memory_id=a))
    view = ConsolidationView()
    view.apply_batch(log.records)
    tenant = view.tenant("t")
    assert a not in tenant.memories
    session = tenant.sessions["s1"]
    assert session.ended and [s.kind for s in session.steps] == ["run_failed"]
    assert session.steps[0].at == failed_at  # the time of its event, not of the fold


def test_an_erasure_takes_the_sessions_text_out_of_the_view_at_once() -> None:
    from codememory.events import DataErased, PromptSubmitted

    log = Log()
    kept = log.add(PromptSubmitted(session_id="s1", agent="claude", prompt="keep the retry budget at 3"))
    gone = log.add(PromptSubmitted(session_id="s1", agent="claude", prompt="my card number is 4111"))
    log.add(PromptSubmitted(session_id="s2", agent="claude", prompt="session two's private plan"))
    view = ConsolidationView()
    view.apply_batch(log.records)
    tenant = view.tenant("t")
    assert {s.text for s in tenant.sessions["s1"].steps} == {
        "keep the retry budget at 3",
        "my card number is 4111",
    }
    log.add(MemoryForgotten(memory_id=gone, reason="erased"))  # erase --memory: one step of s1
    view.apply_batch(log.records)
    assert [s.event_id for s in tenant.sessions["s1"].steps] == [kept] and gone not in tenant.memories
    assert kept in tenant.memories
    forgotten = [m for m, r in tenant.memories.items() if r.session_id == "s2"]
    for memory_id in forgotten:  # erase --session s2: its memories, then the record of the erasure
        log.add(MemoryForgotten(memory_id=memory_id, reason="erased"))
    log.add(DataErased(scope="session", subject_digest="d", memory_ids=tuple(forgotten), session_ids=("s2",)))
    view.apply_batch(log.records)
    assert "s2" not in tenant.sessions and not [r for r in tenant.memories.values() if r.session_id == "s2"]
    texts = [s.text for session in tenant.sessions.values() for s in session.steps]
    texts += [r.text for r in tenant.memories.values()]
    assert not [t for t in texts if "4111" in t or "private plan" in t]


def test_a_cycle_sees_a_raced_merge_as_the_projection_folds_it() -> None:
    """The first merge in LOG keeps a memory (``merge_takes``); unmerging it from the later canonical
    memory, which never took it, leaves it merged where it is."""
    from codememory.events import MemoriesUnmerged

    log = Log()
    a, b, c, d = (log.stored(f"memory {n}", unit(1, n)) for n in range(4))
    log.add(MemoriesMerged(canonical_id=d, merged_ids=(c,)))
    log.add(MemoriesMerged(canonical_id=b, merged_ids=(c, a)))
    log.add(MemoriesUnmerged(canonical_id=b, memory_ids=(c,)))
    view = ConsolidationView()
    view.apply_batch(log.records)
    memories = view.tenant("t").memories
    assert (memories[c].state, memories[c].merged_into) == ("merged", d)
    assert (memories[a].state, memories[a].merged_into) == ("merged", b)
    assert memories[b].restated == 2 and memories[d].restated == 2
