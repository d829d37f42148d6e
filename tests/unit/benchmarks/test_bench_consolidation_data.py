"""The consolidation benchmark's data (built in memory by the generator) has the
shape issue 11 asks for (enough rules, sessions, near-misses, facts; amendments later than decisions)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from benchmodules import load  # type: ignore[import-not-found]

cd = load("consolidation_data")


@pytest.fixture(scope="module")
def sup() -> dict[str, Any]:
    return dict(cd.build_supersession())


@pytest.fixture(scope="module")
def dup() -> dict[str, Any]:
    return dict(cd.build_duplicates())


def test_supersession_shape(sup: dict[str, Any]) -> None:
    memories = {m["id"]: m for m in sup["memories"]}
    assert len(memories) == len(sup["memories"])
    assert len(sup["rules"]) >= 48 and len(sup["near_misses"]) >= 15
    sessions = Counter(m["session_id"] for m in sup["memories"])
    assert len(sessions) >= 100 and min(sessions.values()) >= 5
    special = {m["session_id"] for m in sup["memories"] if m["role"] != "filler"}
    assert len(special) < len(sessions) / 2  # most sessions are unrelated
    for rule in sup["rules"]:
        decision, amendment = memories[rule["decision"]], memories[rule["amendment"]]
        assert (
            decision["type"] in ("decision", "prompt", "note")
            and amendment["created_at"] > decision["created_at"]
        )
        assert decision["session_id"] != amendment["session_id"]
        assert decision["repo"] == amendment["repo"] == rule["repo"]
        assert decision["text"] != amendment["text"] and 1 <= len(rule["questions"]) <= 2
    for pair in sup["near_misses"]:
        assert {memories[i]["repo"] for i in pair["memories"]} == {pair["repo"]}
        assert len(pair["questions"]) == 2
    for items in (sup["rules"], sup["near_misses"]):
        splits = Counter(r["split"] for r in items)
        assert set(splits) == {"dev", "heldout", "heldout2", "heldout3"}
        assert abs(splits["dev"] - splits["heldout"]) <= 2


def test_duplicates_shape(dup: dict[str, Any]) -> None:
    memories = {m["id"]: m for m in dup["memories"]}
    assert len(dup["facts"]) >= 12 and len(dup["similar"]) >= 10
    for fact in dup["facts"]:
        restatements = [memories[i] for i in fact["restatements"]]
        assert 5 <= len(restatements) <= 25
        sessions = Counter(m["session_id"] for m in restatements)
        if fact["split"] in ("heldout6", "heldout7"):  # said together: up to three sentences a session
            assert max(sessions.values()) <= 3 and len(sessions) >= 3
            for session in sessions:
                said = [
                    cd._sentence((m["type"], m["text"])) for m in restatements if m["session_id"] == session
                ]
                assert len(set(said)) == len(said)
        else:
            assert len(sessions) == len(restatements)  # across sessions, one each
        assert len({m["text"] for m in restatements}) == len(restatements)  # each reworded
        types = {m["type"] for m in restatements}
        assert "observation" in types and types & {"prompt", "note"}
    assert all(memories[s["memory"]]["role"] == "similar" for s in dup["similar"])


def test_layout_is_deterministic() -> None:
    assert cd.render(cd.build_supersession()) == cd.render(cd.build_supersession())
