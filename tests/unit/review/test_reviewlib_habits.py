"""The changelog habit is measured over the repository's newest commits, which the fold keeps in order."""

from __future__ import annotations

from commitfeed import REPO, fold_commits  # type: ignore[import-not-found]

from codememory.codegraph import CodeGraph, queries
from codememory.review.missing import _HABIT_WINDOW, _changelog_habits


def _habits(graph: CodeGraph) -> dict[str, float]:
    return queries.read(graph, lambda reader: _changelog_habits(reader, REPO))


def test_a_habit_is_the_share_of_the_newest_commits_whatever_the_order_they_were_folded_in() -> None:
    graph = CodeGraph("t")
    window = _HABIT_WINDOW
    # the newest commits first (history read backwards): every other one updates the changelog
    newest = [(1000 + d, ["app.py", "CHANGES.rst"] if d % 2 else ["app.py"]) for d in range(window)]
    fold_commits(graph, list(reversed(newest)))
    assert _habits(graph) == {"CHANGES.rst": 0.5}
    # older commits that all touched the changelog are outside the window: they change nothing
    fold_commits(graph, [(d, ["CHANGES.rst", "app.py"]) for d in range(50)])
    assert _habits(graph) == {"CHANGES.rst": 0.5}
    # newer commits that never touch it push the older habit out of the window
    fold_commits(graph, [(5000 + d, ["app.py"]) for d in range(window // 2)])
    assert _habits(graph) == {"CHANGES.rst": 0.25}


def test_no_history_no_habit() -> None:
    assert _habits(CodeGraph("t")) == {}
