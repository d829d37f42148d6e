"""Every replica's session contexts, folded from LOG into this replica's record (``givenfold``)."""

from __future__ import annotations

from codememory.events import (
    Envelope,
    MemoriesRecalled,
    MemoryAccess,
    MemoryScope,
    MemoryStored,
    new_envelope,
)
from codememory.gateway.givencontext import GivenContext
from codememory.gateway.givenfold import GivenFromLog


def _recalled(tenant: str, n: int, *accesses: MemoryAccess) -> Envelope:
    return new_envelope(MemoriesRecalled(accesses=accesses), event_id=f"e{n}", tenant=tenant)


def _context(memory_id: str, session: str, at: float, *, starts: bool = False) -> MemoryAccess:
    return MemoryAccess(memory_id=memory_id, session_id=session, purpose="context", at=at, starts=starts)


def test_context_accesses_become_the_record_and_recalls_do_not() -> None:
    given = GivenContext()
    fold = GivenFromLog(given, clock=lambda: 30.0)
    note = MemoryStored(memory_id="m0", text="x", memory_type="note", scope=MemoryScope())
    stored = new_envelope(note, event_id="e0", tenant="t")
    start = (_context("a", "s1", 10.0, starts=True), _context("b", "s1", 10.0, starts=True))
    batch = [
        (1, stored),
        (2, _recalled("t", 2, *start)),
        (3, _recalled("t", 3, MemoryAccess(memory_id="r", session_id="s1", purpose="recall", at=11.0))),
        (4, _recalled("u", 4, _context("z", "s1", 12.0, starts=True))),  # another tenant's session s1
    ]
    assert fold.apply_batch(batch) == 4 and fold.last_seq == 4
    assert given.given("t", "s1") == {"a", "b"}
    assert given.given("u", "s1") == {"z"}
    assert fold.apply_batch(batch) == 0  # folded already: nothing applied twice
    fold.apply_batch([(5, _recalled("t", 5, _context("c", "s1", 20.0, starts=True)))])
    assert given.given("t", "s1") == {"c"}  # a start on another replica started the record again


def test_a_replicas_own_note_then_its_event_change_nothing_more() -> None:
    given = GivenContext()
    given.note("t", "s1", ["a"], restart=True, at=10.0)  # served here, noted at once
    given.note("t", "s1", ["b"], restart=False, at=11.0)
    GivenFromLog(given, clock=lambda: 30.0).apply_batch(
        [(1, _recalled("t", 1, _context("a", "s1", 10.0, starts=True)))]
    )
    assert given.given("t", "s1") == {"a", "b"}  # the older start, arriving late, forgets nothing newer


def test_poison_and_positions_move_it_on() -> None:
    fold = GivenFromLog(GivenContext())
    fold.skip(3)
    fold.save_position(2)
    assert (fold.last_seq, fold.poisoned) == (3, 1)


def test_a_start_that_gave_nothing_starts_the_record_and_old_contexts_are_left_in_log() -> None:
    given = GivenContext()
    fold = GivenFromLog(given, max_age_s=100.0, clock=lambda: 1_000.0)
    fold.apply_batch(
        [
            (1, _recalled("t", 1, _context("old", "s0", 850.0, starts=True))),  # older than 100 s: over
            (2, _recalled("t", 2, _context("a", "s1", 950.0, starts=True))),
            (3, _recalled("t", 3, _context("", "s1", 960.0, starts=True))),  # a start that gave nothing
        ]
    )
    assert given.given("t", "s0") == frozenset()
    assert given.given("t", "s1") == frozenset()
    assert fold.last_seq == 3
