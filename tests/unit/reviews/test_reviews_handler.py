"""The durable consumer: an undoing edit and a fresh commit are recorded once; anything else is acked."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from reviewskit import SESSION, TENANT, deliveries, edit, live_view, prompt, records  # type: ignore[import-not-found]

from codememory.bus import Retryable, Verdict
from codememory.events import (
    CodeRef,
    CommitRecorded,
    CommitReviewed,
    FileChange,
    ForgettingDetected,
    ImportRef,
    InMemoryEventLog,
    Symbol,
    SymbolsExtracted,
    decode_envelope,
)
from codememory.reviews.handler import ReviewsHandler
from codememory.reviews.reviewer import Reviewer, detection_id

NOW = datetime.now(UTC).timestamp()


def _symbols(
    path: str, module: str, names: list[str], refs: list[CodeRef], imports: list[ImportRef]
) -> SymbolsExtracted:
    mod = Symbol(qualname=module, name=module.rsplit(".", 1)[-1], kind="module", start_line=1, end_line=50)
    children = [
        Symbol(qualname=f"{module}.{n}", name=n, kind="function", start_line=2, end_line=5, parent=module)
        for n in names
    ]
    return SymbolsExtracted(
        repo="acme/shop",
        path=path,
        content_hash="h",
        language="python",
        module=module,
        symbols=(mod, *children),
        imports=tuple(imports),
        refs=tuple(refs),
    )


async def _run(events: list[object], *, max_age: float = 0.0) -> tuple[InMemoryEventLog, list[object]]:
    log = InMemoryEventLog()
    live = live_view()
    rows = await records(log, events)  # type: ignore[arg-type]
    await live.apply(rows)
    handler = ReviewsHandler(lambda: Reviewer(live, commit_max_age_s=max_age), log, wait_s=1.0)
    outcomes = await handler(deliveries(rows))
    assert all(o.verdict is Verdict.ACK for o in outcomes)
    appended = [decode_envelope(r.data).payload async for r in log.read(rows[-1].seq + 1)]
    return log, appended


def test_an_edit_undoing_an_earlier_turn_is_recorded_with_a_deterministic_id() -> None:
    events = [
        prompt("rename get_user to fetch_user"),
        edit("app/users.py", "def get_user(uid):", "def fetch_user(uid):"),
        prompt("add logging"),
        edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):"),
    ]
    _, appended = asyncio.run(_run(events))
    (found,) = appended
    assert isinstance(found, ForgettingDetected)
    assert found.instruction == "rename get_user to fetch_user" and found.instructed_turn == 1
    assert found.instruction_id == "e-1"  # the prompt it quotes: sealed with that prompt's key
    assert found.detection_id == detection_id(TENANT, SESSION, 4) and found.edit_seq == 4


def test_continuations_and_edits_of_the_same_turn_record_nothing() -> None:
    events = [
        prompt("rename get_user to fetch_user"),
        edit("app/users.py", "def get_user(uid):", "def fetch_user(uid):"),
        edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):"),  # same turn: its own attempt
        prompt("update the callers"),
        edit("app/api.py", "    return get_user(uid)", "    return fetch_user(uid)"),
    ]
    _, appended = asyncio.run(_run(events))
    assert appended == []


def test_a_replayed_finding_is_not_recorded_again() -> None:
    async def scenario() -> list[object]:
        events = [
            prompt("rename get_user to fetch_user"),
            edit("app/users.py", "def get_user(uid):", "def fetch_user(uid):"),
            prompt("add logging"),
            edit("app/users.py", "def fetch_user(uid):", "def get_user(uid):"),
        ]
        log, _ = await _run(events)
        live = live_view()  # a restarted replica: rebuilt from LOG, the finding included
        rows = [r async for r in log.read(1)]
        await live.apply(rows)
        handler = ReviewsHandler(lambda: Reviewer(live), log, wait_s=1.0)
        await handler(deliveries(rows[:4]))  # the edits redelivered
        return [decode_envelope(r.data).payload async for r in log.read(rows[-1].seq + 1)]

    assert asyncio.run(scenario()) == []


def test_a_commit_is_reviewed_against_the_graph_and_old_history_is_not() -> None:
    lib = _symbols("pkg/lib.py", "pkg.lib", ["helper"], [], [])
    app = _symbols(
        "pkg/app.py",
        "pkg.app",
        ["main"],
        [CodeRef(kind="calls", source="pkg.app.main", target="helper")],
        [ImportRef(module="pkg.lib", name="helper")],
    )
    change = FileChange(path="pkg/lib.py", symbols=("pkg.lib.helper",))
    fresh = CommitRecorded(
        repo="acme/shop", sha="a" * 40, authored_at=NOW - 60, message="fix helper", files=(change,)
    )
    old = CommitRecorded(
        repo="acme/shop", sha="b" * 40, authored_at=NOW - 90 * 86400, message="old", files=(change,)
    )
    _, appended = asyncio.run(_run([lib, app, fresh, old], max_age=7 * 86400))
    (review,) = appended
    assert isinstance(review, CommitReviewed) and review.sha == "a" * 40
    (changed,) = review.changed
    assert changed.qualname == "pkg.lib.helper" and changed.direct_dependents >= 1
    assert review.dependents >= 1 and 0 < review.risk <= 1
    assert review.risk_parts["untested"] == 1.0  # nothing under tests/ depends on it


def test_undecodable_events_are_dead_lettered_and_a_view_behind_retries() -> None:
    async def scenario() -> None:
        log = InMemoryEventLog()
        live = live_view()
        handler = ReviewsHandler(lambda: Reviewer(live), log, wait_s=0.05)
        bad = deliveries([type("R", (), {"seq": 1, "subject": "cm.log.acme.x", "data": b"{not json"})()])
        (outcome,) = await handler(bad)
        assert outcome.verdict is Verdict.DEAD
        rows = await records(log, [prompt("p"), edit("a.py", "x = 1", "x = 2")])
        with pytest.raises(Retryable):
            await handler(deliveries(rows))  # the view has not folded them yet
        starting = ReviewsHandler(lambda: None, log, wait_s=0.05)
        with pytest.raises(Retryable):
            await starting(deliveries(rows))

    asyncio.run(scenario())
