"""Co-change in the missing list: a commit counts less the more files it touches (``SIZE_POWER``)."""

from __future__ import annotations

import pytest
from commitfeed import REPO, fold_commits  # type: ignore[import-not-found]

from codememory.codegraph import CodeGraph, queries
from codememory.codegraph.reader import GraphReader
from codememory.review.missing import _cochange, commit_weight


def test_commit_weight_halves_with_age_and_shrinks_with_size() -> None:
    assert commit_weight(0.0, 2) == 1.0
    assert commit_weight(10 * 86400.0, 2, half_life_days=10) == pytest.approx(0.5)
    assert commit_weight(0.0, 5, size_power=0.5) == pytest.approx(0.5)  # 1 / sqrt(4)
    assert commit_weight(0.0, 5, size_power=0.0) == 1.0  # counts alone
    assert commit_weight(0.0, 1) == 1.0  # a one-file commit is not divided by zero


def test_a_partner_of_small_commits_outranks_one_of_sweeping_commits_seen_as_often() -> None:
    graph = CodeGraph("t")
    sweep = [f"mod{i}.py" for i in range(15)]
    fold_commits(graph, [(1, ["app.py", "near.py"]), (2, ["app.py", "near.py"])], "added")
    fold_commits(graph, [(3, ["app.py", "far.py", *sweep]), (4, ["app.py", "far.py", *sweep])], "added")

    def shares(reader: GraphReader) -> dict[str, float]:
        idx = reader.find(("file", REPO, "app.py"))
        assert idx is not None
        return _cochange(reader, idx)[0]

    found = queries.read(graph, shares)
    assert found["near.py"] > 2 * found["far.py"]  # both changed with app.py twice
    raw = {c.path: c.count for c in queries.co_changed_with(graph, "app.py", limit=30, repo=REPO)}
    assert raw["near.py"] == raw["far.py"] == 2  # what plain counts cannot tell apart
