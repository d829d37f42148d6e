from __future__ import annotations

import pytest
from graphfeed import DAY, T0, Feed

from codememory.codegraph import InvalidQueryError, UnknownNodeError
from codememory.codegraph.centrality import Centrality
from codememory.codegraph.queries import (
    co_changed_with,
    dependents,
    neighbours,
    path_between,
    stale_central_files,
    symbol_info,
)
from codememory.codegraph.views import NodeRef
from codememory.events import CommitRecorded, FileChange, SymbolsExtracted


def test_symbol_info_by_qualname_or_name(shop_feed: Feed) -> None:
    (info,) = symbol_info(shop_feed.graph, "validate")
    assert info.qualname == "pkg.models.Model.validate" and info.kind == "method" and info.valid
    assert symbol_info(shop_feed.graph, "pkg.models.Base")[0].path == "pkg/models.py"
    with pytest.raises(UnknownNodeError):
        symbol_info(shop_feed.graph, "missing")


def test_neighbours_by_kind_depth_and_direction(shop_feed: Feed) -> None:
    out = neighbours(shop_feed.graph, "pkg.api.create", ["calls"], depth=1, direction="out")
    assert {n.node.name for n in out} == {
        "pkg.models.Model",
        "pkg.models.helper",
        "pkg.models.Model.validate",
    }
    two = neighbours(shop_feed.graph, "pkg.api.create", ["calls"], depth=2, direction="out")
    assert ("pkg.models.Base.save", 2) in {(n.node.name, n.depth) for n in two}
    inward = neighbours(shop_feed.graph, "pkg.models.helper", ["calls"], direction="in")
    assert {n.node.name for n in inward} == {"pkg.api.create", "pkg.models.Model.validate"}
    with pytest.raises(InvalidQueryError):
        neighbours(shop_feed.graph, "pkg.api.create", ["bogus"])


def test_dependents_direct_and_transitive(shop_feed: Feed) -> None:
    direct = {d.node.name for d in dependents(shop_feed.graph, "pkg.models.Base.save")}
    assert direct == {"pkg.models.Model.validate"}
    transitive = {d.node.name for d in dependents(shop_feed.graph, "pkg.models.Base.save", transitive=True)}
    assert transitive == {"pkg.models.Model.validate", "pkg.api.create"}
    of_file = {d.node.name for d in dependents(shop_feed.graph, "pkg/models.py")}
    assert {"pkg/api.py", "pkg/__init__.py", "pkg.api.create"} <= of_file


def test_path_between_reports_edge_kinds_and_directions(shop_feed: Feed) -> None:
    path = path_between(shop_feed.graph, "pkg.api.create", "pkg.models.Base")
    assert path[0].node.name == "pkg.api.create" and path[-1].node.name == "pkg.models.Base"
    assert len(path) == 3 and path[1].edge == "calls" and path[2].edge == "inherits"
    assert (
        path_between(
            shop_feed.graph, NodeRef(kind="file", name="pkg/api.py", repo="acme/shop"), "pkg/api.py"
        )[0].edge
        == ""
    )
    shop_feed.file("lone.py", "lone", [])
    assert path_between(shop_feed.graph, "lone.py", "pkg.api.create") == ()


def test_co_changed_with_ranks_by_count(feed: Feed) -> None:
    feed.commit("c1", T0, [FileChange(path="a.py"), FileChange(path="b.py"), FileChange(path="c.py")])
    feed.commit("c2", T0 + 1, [FileChange(path="a.py"), FileChange(path="c.py")])
    ranked = co_changed_with(feed.graph, "a.py")
    assert [(c.path, c.count) for c in ranked] == [("c.py", 2.0), ("b.py", 1.0)]
    assert len(co_changed_with(feed.graph, "a.py", limit=1)) == 1


def test_stale_central_files_are_central_and_unchanged(shop_feed: Feed) -> None:
    shop_feed.commit("old", T0 - 100 * DAY, [FileChange(path="pkg/models.py"), FileChange(path="pkg/api.py")])
    shop_feed.commit("new", T0 - DAY, [FileChange(path="pkg/api.py")])
    centrality = Centrality(shop_feed.graph)
    centrality.refresh_if_dirty()
    stale = stale_central_files(shop_feed.graph, centrality.snapshot, days=30, now=T0, limit=5)
    assert stale[0].path == "pkg/models.py"
    assert "pkg/api.py" not in {s.path for s in stale}


def test_an_empty_name_is_a_malformed_query_not_an_unknown_node(shop_feed: Feed) -> None:
    graph = shop_feed.graph
    for ask in (
        lambda: symbol_info(graph, ""),
        lambda: neighbours(graph, " "),
        lambda: neighbours(graph, NodeRef(kind="file", name="", repo="acme/shop")),
        lambda: dependents(graph, ""),
        lambda: path_between(graph, "pkg.api.create", ""),
        lambda: co_changed_with(graph, ""),
    ):
        with pytest.raises(InvalidQueryError, match="name is empty"):
            ask()


def test_neighbours_and_dependents_stop_at_the_limit_nearest_first(shop_feed: Feed) -> None:
    graph = shop_feed.graph
    every = neighbours(graph, "pkg.api.create", ["calls"], depth=2, direction="out")
    assert len(every) == 4 and max(n.depth for n in every) == 2
    assert neighbours(graph, "pkg.api.create", ["calls"], depth=2, direction="out", limit=4) == every
    assert neighbours(graph, "pkg.api.create", ["calls"], depth=2, direction="out", limit=3) == every[:3]
    assert {n.depth for n in every[:3]} == {1}
    chain = dependents(graph, "pkg.models.Base.save", transitive=True)
    assert [d.depth for d in chain] == [1, 2]
    assert dependents(graph, "pkg.models.Base.save", transitive=True, limit=1) == chain[:1]
    with pytest.raises(InvalidQueryError):
        neighbours(graph, "pkg.api.create", limit=0)
    with pytest.raises(InvalidQueryError):
        dependents(graph, "pkg.api.create", limit=0)


def test_stale_central_files_keep_to_the_repository_before_the_limit(shop_feed: Feed) -> None:
    shop_feed.commit("old", T0 - 100 * DAY, [FileChange(path="pkg/models.py"), FileChange(path="pkg/api.py")])
    shop_feed.emit(
        SymbolsExtracted(repo="acme/tools", path="tools/lone.py", content_hash="t", module="tools.lone")
    )
    tools = CommitRecorded(
        repo="acme/tools", sha="t1", authored_at=T0 - 100 * DAY, files=(FileChange(path="tools/lone.py"),)
    )
    shop_feed.emit(tools, T0 - 100 * DAY)
    centrality = Centrality(shop_feed.graph)
    centrality.refresh_if_dirty()
    (top,) = stale_central_files(shop_feed.graph, centrality.snapshot, days=30, now=T0, limit=1)
    assert top.repo == "acme/shop"
    (lone,) = stale_central_files(
        shop_feed.graph, centrality.snapshot, days=30, now=T0, limit=1, repo="acme/tools"
    )
    assert (lone.repo, lone.path) == ("acme/tools", "tools/lone.py")
