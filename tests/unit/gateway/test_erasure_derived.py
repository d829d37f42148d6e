"""Erase reaches what repeats the erased text: insights and summaries derived from it (and what was
derived from those), the ``pre`` event of an erased tool call, a forgetting detection quoting an
erased prompt, and a lesson written after its source was erased; and a user is not erased while
hook messages still wait for ingest."""

from __future__ import annotations

import hashlib

import pytest
from erasurekit import Points, applied  # type: ignore[import-not-found]

from codememory.events import (
    DataErased,
    Envelope,
    Event,
    ForgettingDetected,
    InMemoryEventLog,
    InsightDerived,
    MemoryForgotten,
    PromptSubmitted,
    SessionSummarized,
    ToolObserved,
    decode_envelope,
    encode_envelope,
    new_envelope,
)
from codememory.gateway.erasure import Eraser, subject_digest
from codememory.gateway.errors import NotReady
from codememory.sealing import ERASED, Sealer


def _envelope(event: Event, ident: str) -> Envelope:
    return new_envelope(event, event_id=ident, tenant="t")


async def _log(events: list[tuple[str, Event]]) -> tuple[InMemoryEventLog, Points]:
    log = InMemoryEventLog()
    appended = await log.append([_envelope(e, i) for i, e in events])
    memories = [
        {"tenant": "t", "memory_id": i, "session_id": getattr(e, "session_id", ""), "created_seq": a.seq}
        for (i, e), a in zip(events, appended, strict=True)
    ]
    return log, Points(memories)


def _opened(log: InMemoryEventLog) -> dict[str, Event]:
    return {e.event_id: e.payload for e in (decode_envelope(r.data) for r in log.records)}


def _prompt(text: str) -> PromptSubmitted:
    return PromptSubmitted(session_id="s1", agent="claude", prompt=text)


async def test_insights_and_summaries_that_repeat_an_erased_prompt_are_erased_with_it(sealer: Sealer) -> None:
    secret = "no, keep the spare key under the blue flowerpot instead"
    insight = InsightDerived(
        insight_id="i1",
        kind="correction",
        title=secret,
        what_worked=secret,
        evidence_ids=("p0", "p1"),
        session_id="s1",
    )
    summary = SessionSummarized(
        summary_id="sum1", session_id="s1", summary=f"asked: {secret}", memory_ids=("p1",)
    )
    # a lesson drawn from the insight in turn, and a summary of another session that does not quote it
    lesson = InsightDerived(insight_id="i2", kind="convention", title=secret, evidence_ids=("i1",))
    other = SessionSummarized(summary_id="sum2", session_id="s2", summary="asked: other", memory_ids=("q1",))
    log, points = await _log(
        [
            ("p0", _prompt("make the tests pass")),
            ("p1", _prompt(secret)),
            ("i1", insight),
            ("sum1", summary),
            ("i2", lesson),
            ("sum2", other),
        ]
    )
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    response = await eraser.erase("t", "memory", "p1")
    assert set(response.memory_ids) == {"p1", "i1", "sum1", "i2"}
    opened = _opened(log)
    assert opened["p1"].prompt == ERASED and opened["p0"].prompt == "make the tests pass"  # type: ignore[attr-defined]
    assert opened["i1"].title == ERASED and opened["i1"].what_worked == ERASED  # type: ignore[attr-defined]
    assert opened["sum1"].summary == ERASED and opened["i2"].title == ERASED  # type: ignore[attr-defined]
    assert opened["sum2"].summary == "asked: other"  # type: ignore[attr-defined]
    forgotten = {p.memory_id for p in opened.values() if isinstance(p, MemoryForgotten)}
    assert forgotten == {"p1", "i1", "sum1", "i2"}  # the projections drop the derived memories too
    raw = b"".join(r.data for r in log.records)
    assert b"flowerpot" not in raw


async def test_erasing_a_tool_call_erases_its_pre_event_and_no_other_call(sealer: Sealer) -> None:
    def tool(phase: str, call: str, command: str) -> ToolObserved:
        return ToolObserved(
            session_id="s1",
            agent="claude",
            tool="Bash",
            kind="shell",
            phase=phase,  # type: ignore[arg-type]
            command=command,
            summary=f"ran {command}",
            tool_use_id=call,
        )

    log, points = await _log(
        [
            ("pre1", tool("pre", "call-1", "cat ~/diary.txt")),
            ("post1", tool("post", "call-1", "cat ~/diary.txt")),
            ("pre2", tool("pre", "call-2", "pytest -q")),
            ("post2", tool("post", "call-2", "pytest -q")),
        ]
    )
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    response = await eraser.erase("t", "memory", "post1")
    assert response.keys_destroyed == 2  # the event's leaf and its call's
    opened = _opened(log)
    assert opened["post1"].command == ERASED and opened["pre1"].command == ERASED  # type: ignore[attr-defined]
    assert opened["pre2"].command == "pytest -q" and opened["post2"].command == "pytest -q"  # type: ignore[attr-defined]


async def test_a_forgetting_detection_goes_with_the_prompt_it_quotes(sealer: Sealer) -> None:
    detection = ForgettingDetected(
        session_id="s1",
        agent="claude",
        detection_id="d1",
        path="app/users.py",
        instruction="rename get_user to fetch_user for the payroll audit",
        instruction_id="p1",
    )
    log, points = await _log(
        [("p1", _prompt(detection.instruction)), ("p2", _prompt("add logging")), ("d1", detection)]
    )
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    await eraser.erase("t", "memory", "p1")
    opened = _opened(log)
    assert opened["d1"].instruction == ERASED and opened["p2"].prompt == "add logging"  # type: ignore[attr-defined]


async def test_a_lesson_written_after_its_source_was_erased_is_written_erased(sealer: Sealer) -> None:
    log, points = await _log([("p0", _prompt("make it pass")), ("p1", _prompt("the launch code is 0000"))])
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    await eraser.erase("t", "memory", "p1")
    # a cycle that read the session before the erasure was folded writes its lesson now
    late = InsightDerived(
        insight_id="i1",
        kind="correction",
        title="the launch code is 0000",
        evidence_ids=("p0", "p1"),
        session_id="s1",
    )
    kept = InsightDerived(
        insight_id="i2", kind="fix", title="make it pass", evidence_ids=("p0",), session_id="s1"
    )
    data = [encode_envelope(_envelope(late, "i1")), encode_envelope(_envelope(kept, "i2"))]
    assert b"launch code" not in b"".join(data)
    assert decode_envelope(data[0]).payload.title == ERASED  # type: ignore[attr-defined]
    assert decode_envelope(data[1]).payload.title == "make it pass"  # type: ignore[attr-defined]


async def test_a_user_is_not_erased_while_hooks_still_hold_messages_for_ingest(sealer: Sealer) -> None:
    log, points = await _log(
        [("p1", PromptSubmitted(session_id="s1", agent="claude", user="u", prompt="hi"))]
    )
    asked: list[float] = []

    async def lagging(timeout_s: float) -> bool:
        asked.append(timeout_s)
        return False

    eraser = Eraser(log, sealer, applied, 1.0, lambda: points, lagging, 2.5)  # type: ignore[arg-type, return-value]
    with pytest.raises(NotReady, match="still wait for ingest"):
        await eraser.erase("t", "user", "u")
    assert asked == [2.5] and len(log.records) == 1  # nothing appended, nothing destroyed
    assert _opened(log)["p1"].prompt == "hi"  # type: ignore[attr-defined]
    await eraser.erase("t", "memory", "p1")  # one memory: nothing in HOOKS is it
    assert asked == [2.5] and _opened(log)["p1"].prompt == ERASED  # type: ignore[attr-defined]


async def test_what_data_erased_says_was_erased_confirms_no_guessed_user_name(sealer: Sealer) -> None:
    log, points = await _log(
        [("p1", PromptSubmitted(session_id="s1", agent="claude", user="alice", prompt="x"))]
    )
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    await eraser.erase("t", "user", "alice")
    (erased,) = [p for p in _opened(log).values() if isinstance(p, DataErased)]
    guess = hashlib.sha256(b"t\0user\0alice").hexdigest()  # what LOG held before: a name's plain digest
    assert erased.subject_digest != guess
    assert erased.subject_digest == subject_digest(sealer.keys.id_key("t"), "t", "user", "alice")
