from __future__ import annotations

from graphfeed import DAY, T0, Feed, edges, sym

from codememory.codegraph.fold_history import COCHANGE_MAX_FILES
from codememory.events import FileChange


def test_commit_adds_parents_modified_by_and_symbol_change_times(shop_feed: Feed) -> None:
    shop_feed.commit("c1", T0 - 5 * DAY, [FileChange(path="pkg/models.py", status="added")])
    shop_feed.commit(
        "c2",
        T0 + 3 * DAY,
        [FileChange(path="pkg/models.py", symbols=("pkg.models.helper",)), FileChange(path="pkg/api.py")],
        parents=("c1",),
    )
    graph = shop_feed.graph
    assert ("c2", "c1") in edges(graph, "parent")
    assert {("pkg/models.py", "c1"), ("pkg/models.py", "c2"), ("pkg.models.helper", "c2")} <= edges(
        graph, "modified_by"
    )
    helper = graph.symbol_at(graph.index[("symbol", "acme/shop", "pkg.models.helper")])
    assert helper.changed_at == T0 + 3 * DAY


def test_co_change_counts_accumulate_per_pair(feed: Feed) -> None:
    for i, day in enumerate((1, 2, 3)):
        files = [FileChange(path="a.py"), FileChange(path="b.py")] + (
            [FileChange(path="c.py")] if i == 0 else []
        )
        feed.commit(f"c{i}", T0 + day * DAY, files)
    graph = feed.graph
    weights = {
        (graph.g[s].key[-1], graph.g[d].key[-1]): e.weight
        for s, d, e in graph.g.weighted_edge_list()
        if e.kind == "co_changed"
    }
    assert weights == {("a.py", "b.py"): 3.0, ("a.py", "c.py"): 1.0, ("b.py", "c.py"): 1.0}


def test_huge_commits_are_not_counted_for_co_change(feed: Feed) -> None:
    files = [FileChange(path=f"f{i}.py") for i in range(COCHANGE_MAX_FILES + 1)]
    feed.commit("big", T0, files)
    assert not edges(feed.graph, "co_changed")
    assert len(edges(feed.graph, "modified_by")) == COCHANGE_MAX_FILES + 1


def test_rename_carries_history_and_co_change_to_the_new_path(feed: Feed) -> None:
    feed.commit("c1", T0, [FileChange(path="old.py", status="added"), FileChange(path="x.py")])
    feed.commit("c2", T0 + DAY, [FileChange(path="new.py", status="renamed", old_path="old.py")])
    graph = feed.graph
    new = graph.file_at(graph.index[("file", "acme/shop", "new.py")])
    assert [c[2] for c in new.changes] == ["c1", "c2"]
    assert ("new.py", "c1") in edges(graph, "modified_by")
    assert ("new.py", "x.py") in edges(graph, "co_changed")
    from codememory.codegraph.model import alive_now

    assert not alive_now(graph.file_at(graph.index[("file", "acme/shop", "old.py")]).life)


def test_history_seen_before_the_symbol_is_kept_for_it(feed: Feed) -> None:
    feed.commit("c1", T0 - DAY, [FileChange(path="m.py", symbols=("m.f",))])
    feed.file("m.py", "m", [sym("m.f")])
    f = feed.graph.symbol_at(feed.graph.index[("symbol", "acme/shop", "m.f")])
    assert f.changed_at == T0 - DAY
    assert [h[2] for h in f.history] == ["c1", ""]
