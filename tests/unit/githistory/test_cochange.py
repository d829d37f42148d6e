"""The co-change model: association, recency, large commits, renames, deletions, graph blending."""

from __future__ import annotations

import pytest

from codememory.events import CommitRecorded, FileChange
from codememory.githistory import CoChange

_COUNTER = iter(range(1_000_000))


def _commit(*paths: str, parents: int = 1, **changes: FileChange) -> CommitRecorded:
    files = tuple(FileChange(path=p) for p in paths) + tuple(changes.values())
    n = next(_COUNTER)
    return CommitRecorded(
        repo="r", sha=f"{n:040x}", parents=tuple("p" * 40 for _ in range(parents)), files=files
    )


def _names(model: CoChange, path: str, **kwargs: object) -> list[str]:
    return [p for p, _ in model.predict(path, 10, **kwargs)]  # type: ignore[arg-type]


def test_frequent_partners_rank_first_with_confidence_scores() -> None:
    model = CoChange()
    for _ in range(3):
        model.observe(_commit("app.py", "test_app.py"))
    model.observe(_commit("app.py", "cli.py"))
    ranked = model.predict("app.py", 10)
    assert [p for p, _ in ranked] == ["test_app.py", "cli.py"]
    assert 0 < ranked[1][1] < ranked[0][1] < 1
    assert model.predict("unknown.py", 10) == []
    assert model.predict("app.py", 0) == []


def test_recent_evidence_outweighs_old() -> None:
    model = CoChange(half_life=2)
    for _ in range(3):
        model.observe(_commit("a.py", "old.py"))
    for _ in range(3):
        model.observe(_commit("a.py", "new.py"))
    assert _names(model, "a.py") == ["new.py", "old.py"]
    flat = CoChange(half_life=1e12)
    for _ in range(4):
        flat.observe(_commit("a.py", "old.py"))
    for _ in range(3):
        flat.observe(_commit("a.py", "new.py"))
    assert _names(flat, "a.py") == ["old.py", "new.py"]


def test_large_commits_and_merges_are_not_learned_from() -> None:
    model = CoChange(max_files=3)
    model.observe(_commit("a.py", "b.py", "c.py", "d.py"))
    model.observe(_commit("a.py", "m.py", parents=2))
    assert model.predict("a.py", 10) == []
    assert model.commits_seen == 2 and model.commits_learned == 0


def test_history_follows_renames_and_forgets_deleted_files() -> None:
    model = CoChange()
    model.observe(_commit("old.py", "partner.py"))
    model.observe(_commit(moved=FileChange(path="new.py", status="renamed", old_path="old.py")))
    assert _names(model, "new.py") == ["partner.py"]
    assert _names(model, "partner.py") == ["new.py"]
    assert not model.known("old.py")
    model.observe(_commit(gone=FileChange(path="partner.py", status="deleted")))
    assert _names(model, "new.py") == []


def test_support_threshold() -> None:
    model = CoChange(min_support=2)
    model.observe(_commit("a.py", "once.py"))
    model.observe(_commit("a.py", "twice.py"))
    model.observe(_commit("a.py", "twice.py"))
    assert _names(model, "a.py") == ["twice.py"]


def test_graph_neighbours_fill_in_and_only_break_ties() -> None:
    model = CoChange(graph_weight=0.02)
    model.observe(_commit("a.py", "strong.py"))
    model.observe(_commit("a.py", "strong.py"))
    model.observe(_commit("a.py", "weak.py"))

    def hood(path: str) -> list[str]:
        return ["imported.py", "weak.py", path]

    names = _names(model, "a.py", neighbours=hood)
    assert names[:2] == ["strong.py", "weak.py"]
    assert "imported.py" in names and "a.py" not in names
    assert _names(model, "fresh.py", neighbours=hood) == ["imported.py", "weak.py"]


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ValueError):
        CoChange(max_files=1)
    with pytest.raises(ValueError):
        CoChange(half_life=0)


def test_weights_stay_finite_over_long_histories() -> None:
    model = CoChange(half_life=1)
    model.observe(_commit("a.py", "first.py"))
    for _ in range(400):  # 2**400 would overflow the weight without rescaling
        model.observe(_commit("a.py", "late.py"))
    ranked = model.predict("a.py", 10)
    assert [p for p, _ in ranked] == ["late.py", "first.py"]
    assert all(0 <= score <= 1 for _, score in ranked)
