from __future__ import annotations

from graphfeed import DAY, T0, Feed, sym

from codememory.codegraph.centrality import Centrality
from codememory.codegraph.relevance import GraphRelevance
from codememory.events import FileChange


def relevance(feed: Feed) -> GraphRelevance:
    centrality = Centrality(feed.graph)
    centrality.refresh_if_dirty()
    return GraphRelevance(feed.graph, centrality)


def test_proximity_falls_with_distance_to_the_working_set(shop_feed: Feed) -> None:
    shop_feed.memory("on", "pkg.api.create is slow", T0 + DAY)
    shop_feed.memory("near", "Base.save writes twice", T0 + DAY)
    shop_feed.memory("none", "nothing about code", T0 + DAY)
    rel = relevance(shop_feed)
    near = rel.proximity(["on", "near", "none"], ["pkg.api.create"])
    assert near["on"] == 1.0
    assert near["near"] == 1.0 / (1.0 + 2)  # create -calls-> validate -calls-> Base.save
    assert "none" not in near
    by_path = rel.proximity_of("on", ["/home/me/shop/pkg/api.py"])
    assert by_path == 1.0 / 3  # the file contains module pkg.api, which contains create


def test_centrality_is_the_best_normalised_pagerank_of_linked_code(shop_feed: Feed) -> None:
    shop_feed.memory("central", "pkg.models.helper", T0)
    shop_feed.memory("leaf", "pkg.api.unused_thing", T0)
    rel = relevance(shop_feed)
    assert rel.centrality_of("central") > rel.centrality_of("leaf")
    assert 0.0 < rel.centrality_of("central") <= 1.0


def test_suspect_when_linked_code_changed_after_the_memory(shop_feed: Feed) -> None:
    shop_feed.memory("m1", "pkg.api.create retries three times", T0 + DAY)
    rel = relevance(shop_feed)
    assert rel.suspect("m1") is None
    shop_feed.file("pkg/api.py", "pkg.api", [sym("pkg.api.create", digest="new")], at=T0 + 20 * DAY, h="h9")
    reason = rel.suspect("m1")
    assert reason == "`pkg.api.create` changed 2026-11-21 after this memory (2026-11-02)"
    assert rel.suspects(["m1", "missing"]) == {"m1": reason}


def test_an_edit_folded_moments_after_its_memory_is_not_suspect(shop_feed: Feed) -> None:
    shop_feed.memory("m1", "changed pkg.api.create", T0 + DAY)
    shop_feed.file("pkg/api.py", "pkg.api", [sym("pkg.api.create", digest="new")], at=T0 + DAY + 2, h="h9")
    assert relevance(shop_feed).suspect("m1") is None


def test_removed_symbols_make_memories_suspect(shop_feed: Feed) -> None:
    shop_feed.memory("m1", "pkg.api.unused_thing is dead code", T0 + DAY)
    shop_feed.file("pkg/api.py", "pkg.api", [sym("pkg.api.create")], at=T0 + 3 * DAY, h="h9")
    assert "was removed" in (relevance(shop_feed).suspect("m1") or "")


def test_a_commit_message_is_dated_history_never_suspect(shop_feed: Feed) -> None:
    change = FileChange(path="pkg/api.py", status="modified", symbols=("pkg.api.create",))
    commit = shop_feed.commit("c" * 40, T0 + DAY, [change])
    shop_feed.memory("m1", "pkg.api.create retries three times", T0 + DAY)
    shop_feed.file("pkg/api.py", "pkg.api", [sym("pkg.api.create", digest="new")], at=T0 + 20 * DAY, h="h9")
    rel = relevance(shop_feed)
    assert rel.proximity_of(commit.event_id, ["pkg.api.create"]) == 1.0  # linked to the code it changed
    assert rel.suspect(commit.event_id) is None  # the code changed since: the commit is still what it was
    assert rel.suspect("m1") is not None  # a statement about the code now is suspect


def test_a_memory_about_a_working_set_symbol_the_query_names(shop_feed: Feed) -> None:
    shop_feed.memory("save", "Base.save: write once, because two writes race", T0 + DAY)
    shop_feed.memory("other", "pkg.models.helper is pure", T0 + DAY)
    rel = relevance(shop_feed)
    ids = ["save", "other"]
    models = ["/home/me/shop/pkg/models.py"]
    assert rel.named(ids, models, "after upgrading, save writes the row twice") == {"save": 1.0}
    assert rel.named(ids, models, "Base.save() writes twice") == {"save": 1.0}  # a dotted tail
    assert rel.named(ids, ["pkg/api.py"], "save writes twice") == {}  # not a symbol of the working set
    assert rel.named(ids, models, "the model writes twice") == {}  # no name said


def test_a_memory_about_many_symbols_is_less_about_the_one_named(shop_feed: Feed) -> None:
    shop_feed.memory("one", "Base.save: write once", T0 + DAY)
    sweep = "tidy Base.save, Model.validate, pkg.models.helper and pkg.models.Base"
    shop_feed.memory("sweep", sweep, T0 + DAY)
    about = relevance(shop_feed).named(["one", "sweep"], ["pkg/models.py"], "save writes twice")
    assert about["one"] == 1.0
    assert about["sweep"] == 0.5  # four symbols mentioned: 1 / sqrt(4)
