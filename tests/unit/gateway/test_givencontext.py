"""A prompt's context brings only what its session was not given yet (``givencontext``).

The record itself, then through the gateway core over an in-memory log and a real Edge shard.
"""

from __future__ import annotations

import itertools

from codememory.events import MemoryScope
from codememory.gateway.core import GatewayCore
from codememory.gateway.givencontext import GivenContext
from codememory.gateway.writes import NewMemory
from codememory.recall import ContextRequest


def test_a_session_start_restarts_the_record_and_prompts_add_to_it() -> None:
    given = GivenContext(max_sessions=2, max_given=3)
    given.note("t", "s1", ["a", "b"], restart=True)
    given.note("t", "s1", ["c"], restart=False)
    assert given.given("t", "s1") == {"a", "b", "c"}
    assert given.given("u", "s1") == frozenset()  # another tenant's session of that id
    given.note("t", "s1", ["d"], restart=False)  # over max_given: the oldest is forgotten
    assert given.given("t", "s1") == {"b", "c", "d"}
    given.note("t", "s1", ["e"], restart=True)
    assert given.given("t", "s1") == {"e"}
    given.note("t", "s2", ["x"], restart=True)
    given.note("t", "s3", ["y"], restart=True)  # over max_sessions: the least recent session goes
    assert given.given("t", "s1") == frozenset() and given.given("t", "s3") == {"y"}
    given.note("t", "", ["z"], restart=True)  # no session id: nothing to remember it by
    assert given.given("t", "") == frozenset()


def test_the_record_is_the_same_whatever_order_its_notes_arrive_in() -> None:
    notes = [  # (ids, restart, at): a start on one replica, a prompt there, a start again on another ...
        (["a", "b"], True, 10.0),
        (["c"], False, 11.0),
        (["b", "d"], True, 20.0),
        (["e"], False, 21.0),
        (["a"], False, 15.0),  # a prompt between the two starts: before the second, so forgotten
    ]
    records = set()
    for order in itertools.permutations(notes):
        given = GivenContext()
        for ids, restart, at in order:
            given.note("t", "s1", ids, restart=restart, at=at)
        records.add(given.given("t", "s1"))
    assert records == {frozenset({"b", "d", "e"})}


def test_over_its_cap_a_session_forgets_the_earliest_given_whatever_the_order() -> None:
    notes = [(["a"], True, 1.0), (["b"], False, 2.0), (["c"], False, 3.0), (["d"], False, 4.0)]
    records = set()
    for order in itertools.permutations(notes):
        given = GivenContext(max_given=2)
        for ids, restart, at in order:
            given.note("t", "s1", ids, restart=restart, at=at)
        records.add(given.given("t", "s1"))
    assert records == {frozenset({"c", "d"})}


def test_a_tenant_that_opens_sessions_by_the_thousand_pushes_out_its_own() -> None:
    given = GivenContext(max_sessions=3)
    given.note("quiet", "q1", ["a"], restart=True, at=1.0)
    for n in range(10):  # another tenant floods the record
        given.note("loud", f"l{n}", ["x"], restart=True, at=2.0 + n)
    assert given.given("quiet", "q1") == {"a"}
    assert given.given("loud", "l9") == {"x"} and given.given("loud", "l0") == frozenset()
    given.note("loud", "l8", ["y"], restart=False, at=20.0)  # the most recent of its tenant again
    given.note("quiet", "q2", ["b"], restart=True, at=21.0)
    assert given.given("loud", "l8") == {"x", "y"} and given.given("loud", "l9") == frozenset()
    assert given.given("quiet", "q1") == {"a"} and given.given("quiet", "q2") == {"b"}


def test_a_context_is_stamped_after_what_the_record_knows_of_its_session() -> None:
    given = GivenContext()
    assert given.stamp("t", "s1", now=50.0) == 50.0
    given.note("t", "s1", ["a"], restart=True, at=100.0)  # another replica's start, its clock ahead
    later = given.stamp("t", "s1", now=98.0)  # this replica's clock says 98
    assert later > 100.0
    given.note("t", "s1", ["b"], restart=False, at=later)
    assert given.given("t", "s1") == {"a", "b"}  # the prompt counts: it came after the start
    given.note("t", "s1", [], restart=True, at=given.stamp("t", "s1", now=99.0))  # a start that gave nothing
    assert given.given("t", "s1") == frozenset()


ASKED = "how often does the api retry?"


def _asked(session: str, prompt: str = "") -> ContextRequest:
    return ContextRequest(tenant="t", repo="api", session_id=session, prompt=prompt)


async def test_a_prompts_context_leaves_out_what_the_session_was_given(core: GatewayCore) -> None:
    scope = MemoryScope(repo="api")
    texts = (
        "the api retries failed calls 5 times with exponential backoff",
        "the api tests run with pytest -x, never unittest",
        "the api database is postgres 15, migrations go through alembic",
    )
    ids = [(await core.store("t", NewMemory(text=text, scope=scope))).memory_id for text in texts]
    start = await core.context(_asked("s1"))
    assert set(start.memory_ids) == set(ids)
    asked = await core.context(_asked("s1", ASKED))
    assert asked.memory_ids == () and asked.text == ""  # nothing it was not given already
    added = (
        await core.store("t", NewMemory(text="the api retry budget is 30 seconds in all", scope=scope))
    ).memory_id
    asked = await core.context(_asked("s1", ASKED))
    assert asked.memory_ids == (added,)  # only the news
    other = await core.context(_asked("s2", ASKED))
    assert set(other.memory_ids) == {*ids, added}  # another session was given nothing yet
    compacted = await core.context(_asked("s1"))  # its start again (after a compaction)
    assert set(compacted.memory_ids) == {*ids, added}
    resumed = await core.context(_asked("s1"), resumed=True)  # the conversation kept
    assert resumed.memory_ids == ()
    await core.store("t", NewMemory(text="the api retries are logged at warning level", scope=scope))
    resumed = await core.context(_asked("s1"), resumed=True)
    assert len(resumed.memory_ids) == 1  # only what it was not given
