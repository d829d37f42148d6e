"""The reviews view folds code facts into its graphs when a review reads them, in LOG order.

Real facts of a small repository (extracted by ``codememory.code``), folded eagerly into a ``TenantGraphs``
and through the view: the view's graph is untouched until asked, then identical (same digest); past
``MAX_DEFERRED`` waiting facts the view folds as they come.
"""

from __future__ import annotations

from reviewskit import TENANT, envelope  # type: ignore[import-not-found]

from codememory.code import extract_file
from codememory.codegraph import TenantGraphs
from codememory.codegraph.digest import graph_digest
from codememory.reviews import view as view_module
from codememory.reviews.view import ReviewsView

BASE = (
    "class Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n        return 1\n"
)
CHILD = (
    "from pkg.base import Base\n\n\nclass Child(Base):\n    def step(self):\n        return helper()\n\n\n"
    "def helper():\n    return Base().run()\n"
)
USE = "from pkg.child import Child, helper\n\n\ndef main():\n    Child().run()\n    helper()\n"
FILES = {"pkg/base.py": BASE.encode(), "pkg/child.py": CHILD.encode(), "pkg/use.py": USE.encode()}


def _envelopes() -> list:  # type: ignore[type-arg]
    return [
        envelope(extract_file("r", path, source), f"e{i}") for i, (path, source) in enumerate(FILES.items())
    ]


def test_code_facts_wait_until_a_review_reads_the_graph_and_fold_the_same() -> None:
    eager = TenantGraphs()
    view = ReviewsView()
    for seq, env in enumerate(_envelopes(), 1):
        eager.apply(env, seq)
        view.apply_batch([(seq, env)])
    assert len(view.graphs) == 0  # nothing folded yet
    assert graph_digest(view.graph(TENANT)) == graph_digest(eager.graph(TENANT))
    assert view.fold_deferred() == 0


def test_past_the_bound_facts_are_folded_as_they_come(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(view_module, "MAX_DEFERRED", 1)
    view = ReviewsView()
    for seq, env in enumerate(_envelopes(), 1):
        view.apply_batch([(seq, env)])
    assert len(view.graphs) == 1 and view.fold_deferred() == 1  # the last one still waited
