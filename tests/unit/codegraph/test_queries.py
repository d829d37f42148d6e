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
from codememory.events import FileChange


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
