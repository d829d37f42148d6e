from __future__ import annotations

from datetime import UTC, datetime

import pytest
from graphfeed import DAY, T0, Feed, sym

from codememory.codegraph import InvalidQueryError, UnknownNodeError
from codememory.codegraph.queries import changed_between, exists_at, graph_as_of, symbol_history
from codememory.events import FileChange


@pytest.fixture
def history(feed: Feed) -> Feed:
    """c1 adds m.py (f), indexed at T0; c2 changes f; at T0+2d g appears; at T0+4d m.py is deleted."""
    feed.commit("c1", T0 - 10 * DAY, [FileChange(path="m.py", status="added")])
    feed.file("m.py", "m", [sym("m.f", digest="a")], at=T0)
    feed.commit("c2", T0 + DAY, [FileChange(path="m.py", symbols=("m.f",))], parents=("c1",))
    feed.file("m.py", "m", [sym("m.f", digest="b"), sym("m.g")], at=T0 + 2 * DAY, h="h2")
    feed.delete("m.py", at=T0 + 4 * DAY)
    return feed


def test_changed_between_times_or_shas(history: Feed) -> None:
    first = changed_between(history.graph, T0 - 11 * DAY, T0 - 9 * DAY)
    assert [c.sha for c in first.commits] == ["c1"] and first.files == (("acme/shop", "m.py"),)
    assert first.symbols == ()  # first indexing is not a change
    later = changed_between(history.graph, "c2", datetime.fromtimestamp(T0 + 3 * DAY, UTC))
    assert [c.sha for c in later.commits] == ["c2"] and later.commits[0].summary == "commit c2"
    assert {q for _, q in later.symbols} == {"m.f", "m.g"}
    with pytest.raises(InvalidQueryError):
        changed_between(history.graph, T0, T0 - 1)
    with pytest.raises(UnknownNodeError):
        changed_between(history.graph, "nosuchsha", T0)


def test_graph_as_of_follows_validity_over_time(history: Feed) -> None:
    graph = history.graph
    before = graph_as_of(graph, T0 - 20 * DAY)
    assert before.file_count == 0
    at_c1 = graph_as_of(graph, "c1")
    assert at_c1.contains("m.py") and at_c1.contains("m.f")  # file known from c1; f assumed with it
    assert not at_c1.contains("m.g")
    mid = graph_as_of(graph, T0 + 3 * DAY)
    assert mid.contains("m.g") and mid.symbol_count == 3  # module m, f, g
    assert graph_as_of(graph, T0 + 5 * DAY).file_count == 0
    assert exists_at(graph, "m.g", T0 + 3 * DAY) and not exists_at(graph, "m.g", T0 + DAY)
    assert not exists_at(graph, "m.f", T0 + 5 * DAY)


def test_symbol_history_lists_every_change(history: Feed) -> None:
    entries = symbol_history(history.graph, "m.f")
    assert [(e.digest, e.commit) for e in entries] == [("a", ""), ("", "c2"), ("b", "")]
    assert entries[1].summary == "commit c2"
    with pytest.raises(UnknownNodeError):
        symbol_history(history.graph, "m.nope")
