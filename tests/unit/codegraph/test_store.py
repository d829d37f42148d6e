from __future__ import annotations

import threading

import pytest
from graphfeed import DAY, T0, Feed, sym

from codememory.codegraph import UnknownNodeError
from codememory.codegraph.model import alive_now


def test_applying_the_same_sequence_twice_changes_nothing(shop_feed: Feed) -> None:
    before = shop_feed.graph.digest()
    envelope, seq = shop_feed.log[-1]
    assert shop_feed.graph.apply(envelope, seq) is False
    assert shop_feed.graph.apply(shop_feed.log[0][0], 1) is False
    assert shop_feed.graph.digest() == before


def test_first_index_does_not_mark_symbols_changed_but_a_new_digest_does(feed: Feed) -> None:
    feed.file("m.py", "m", [sym("m.f", digest="a"), sym("m.g", digest="a")])
    f = feed.graph.symbol_at(feed.graph.index[("symbol", "acme/shop", "m.f")])
    assert f.changed_at is None and f.first_indexed
    feed.now = T0 + DAY
    feed.file("m.py", "m", [sym("m.f", digest="b"), sym("m.g", digest="a"), sym("m.h")], h="h2")
    g = feed.graph.symbol_at(feed.graph.index[("symbol", "acme/shop", "m.g")])
    h = feed.graph.symbol_at(feed.graph.index[("symbol", "acme/shop", "m.h")])
    assert f.changed_at == T0 + DAY and g.changed_at is None and h.changed_at == T0 + DAY
    assert [entry[1] for entry in f.history] == ["a", "b"]


def test_a_symbol_gone_from_its_file_ends_but_is_kept(feed: Feed) -> None:
    feed.file("m.py", "m", [sym("m.f"), sym("m.g")])
    feed.now += 10
    feed.file("m.py", "m", [sym("m.f")], h="h2")
    g = feed.graph.symbol_at(feed.graph.index[("symbol", "acme/shop", "m.g")])
    assert not alive_now(g.life)
    assert "g" not in feed.graph.repo("acme/shop").by_name


def test_file_deleted_ends_the_file_and_its_symbols(feed: Feed) -> None:
    feed.file("m.py", "m", [sym("m.f")])
    feed.now += 10
    feed.delete("m.py")
    graph = feed.graph
    assert not alive_now(graph.file_at(graph.index[("file", "acme/shop", "m.py")]).life)
    assert not alive_now(graph.symbol_at(graph.index[("symbol", "acme/shop", "m.f")]).life)
    feed.now += 10
    feed.file("m.py", "m", [sym("m.f")])
    assert alive_now(graph.symbol_at(graph.index[("symbol", "acme/shop", "m.f")]).life)


def test_contains_edges_follow_parents(shop_feed: Feed) -> None:
    from graphfeed import edges

    contains = edges(shop_feed.graph, "contains")
    assert ("pkg/models.py", "pkg.models") in contains
    assert ("pkg.models", "pkg.models.Base") in contains
    assert ("pkg.models.Base", "pkg.models.Base.save") in contains


def test_unknown_node_is_a_typed_error(feed: Feed) -> None:
    with pytest.raises(UnknownNodeError):
        feed.graph.node(("symbol", "acme/shop", "nope"))


def test_fold_and_readers_on_other_threads_see_whole_events(feed: Feed) -> None:
    from codememory.codegraph.queries import graph_as_of

    seen: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            snapshot = graph_as_of(feed.graph, T0 + 10**6)
            seen.append(snapshot.symbol_count % 3)  # each file adds a module + 2 symbols

    reader = threading.Thread(target=read)
    reader.start()
    for i in range(60):
        feed.file(f"m{i}.py", f"m{i}", [sym(f"m{i}.a"), sym(f"m{i}.b")])
    stop.set()
    reader.join()
    assert seen and set(seen) == {0}


def test_an_event_without_its_keys_is_a_typed_error_and_changes_nothing(feed: Feed) -> None:
    from codememory.codegraph import InvalidEventError
    from codememory.events import CommitRecorded, SymbolsExtracted

    feed.file("m.py", "m", [sym("m.f")])
    before = feed.graph.digest()
    with pytest.raises(InvalidEventError):
        feed.emit(SymbolsExtracted(repo="acme/shop", path="", content_hash="h"))
    with pytest.raises(InvalidEventError):
        feed.emit(CommitRecorded(repo="acme/shop", sha=""))
    assert feed.graph.digest() == before
    feed.file("n.py", "n", [])  # later events still fold
    assert ("file", "acme/shop", "n.py") in feed.graph.index
