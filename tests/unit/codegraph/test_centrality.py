from __future__ import annotations

import rustworkx as rx
from graphfeed import Feed, sym

from codememory.codegraph.centrality import Centrality, sampled_betweenness
from codememory.events import FileChange


def test_pagerank_favours_what_is_depended_on_and_refresh_only_when_dirty(shop_feed: Feed) -> None:
    centrality = Centrality(shop_feed.graph)
    assert centrality.refresh_if_dirty() is True
    assert centrality.refresh_if_dirty() is False
    snapshot = centrality.snapshot
    key = ("symbol", "acme/shop", "pkg.models.helper")
    assert snapshot.normalised_pagerank(key) > snapshot.normalised_pagerank(
        ("symbol", "acme/shop", "pkg.api.create")
    )
    assert (
        snapshot.pagerank[("file", "acme/shop", "pkg/models.py")]
        > snapshot.pagerank[("file", "acme/shop", "pkg/api.py")]
    )
    assert not snapshot.sampled
    shop_feed.file("x.py", "x", [sym("x.y")])
    assert centrality.refresh_if_dirty() is True
    assert centrality.snapshot is not snapshot and snapshot.version < centrality.snapshot.version


def test_memories_never_make_it_recompute_but_code_and_history_do(shop_feed: Feed) -> None:
    """A stream of memories (every hook event is one) must not cost a recompute of a large code graph."""
    centrality = Centrality(shop_feed.graph)
    assert centrality.refresh_if_dirty() is True
    before = shop_feed.graph.version
    for n in range(20):
        shop_feed.memory(f"m{n}", f"pkg.models.helper is slow, see pkg/models.py ({n})", at=100.0 + n)
    shop_feed.forget("m3")
    assert shop_feed.graph.version > before  # the graph moved ...
    assert centrality.refresh_if_dirty() is False  # ... but nothing centrality ranks did
    shop_feed.commit("c1", 1.0, [FileChange(path="pkg/new.py", status="added")])
    assert centrality.refresh_if_dirty() is True
    assert ("file", "acme/shop", "pkg/new.py") in centrality.snapshot.pagerank
    shop_feed.delete("pkg/new.py")
    assert centrality.refresh_if_dirty() is True
    assert ("file", "acme/shop", "pkg/new.py") not in centrality.snapshot.pagerank


def test_sampled_betweenness_matches_exact_when_every_source_is_sampled() -> None:
    g: rx.PyDiGraph[int, None] = rx.PyDiGraph()
    g.add_nodes_from(range(30))
    g.add_edges_from_no_data([(i, (i * 7 + 3) % 30) for i in range(30)] + [(i, i + 1) for i in range(29)])
    exact = rx.digraph_betweenness_centrality(g, normalized=True)
    sampled = sampled_betweenness(g, samples=30, seed=1)
    assert all(abs(exact[v] - sampled[v]) < 1e-9 for v in range(30))
    rough = sampled_betweenness(g, samples=10, seed=1)
    top_exact = max(range(30), key=lambda v: exact[v])
    assert rough[top_exact] > 0


def test_large_graphs_use_the_sampled_estimate(shop_feed: Feed) -> None:
    centrality = Centrality(shop_feed.graph, exact_limit=3, samples=2)
    centrality.refresh_if_dirty()
    assert centrality.snapshot.sampled and centrality.snapshot.betweenness
