"""A client's claims about a memory's time and importance are bounded unless an admin makes them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from codememory.gateway.clamps import MAX_IMPORTANCE, MAX_PAST, clamp_memory, clamp_time
from codememory.gateway.writes import NewMemory

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def test_time_is_clamped_into_a_window_around_now() -> None:
    assert clamp_time("", NOW) == "" and clamp_time("not a date", NOW) == "not a date"
    recent = (NOW - timedelta(days=2)).isoformat()
    assert clamp_time(recent, NOW) == recent
    assert datetime.fromisoformat(clamp_time("2001-01-01T00:00:00Z", NOW)) == NOW - MAX_PAST
    future = datetime.fromisoformat(clamp_time("2099-01-01T00:00:00", NOW))
    assert timedelta(0) < future - NOW <= timedelta(minutes=5)


def test_importance_and_time_are_a_tenants_claims_but_an_admins_decision() -> None:
    claim = NewMemory(text="x", importance=1.0, created_at="1999-12-31T23:59:59+00:00")
    tenant = clamp_memory(claim, admin=False, now=NOW)
    assert tenant.importance == MAX_IMPORTANCE and datetime.fromisoformat(tenant.created_at) == NOW - MAX_PAST
    assert clamp_memory(claim, admin=True, now=NOW) == claim
    modest = NewMemory(text="x", importance=0.4)
    assert clamp_memory(modest, admin=False, now=NOW) == modest
