"""The graph's query API beyond the walks: ``read`` (one state, optimistic), and the small lookups the
gateway and the review service make instead of reaching into the graph."""

from __future__ import annotations

import threading

import pytest
from graphfeed import DAY, T0, Feed, sym

from codememory.codegraph import UnknownNodeError, queries
from codememory.codegraph.reader import GraphReader
from codememory.codegraph.views import NodeRef
from codememory.events import FileChange


def test_read_answers_from_a_quiet_graph_without_the_lock(shop_feed: Feed) -> None:
    graph = shop_feed.graph
    held: list[bool] = []

    def take() -> None:
        got = graph.lock.acquire(timeout=1)
        held.append(got)
        if got:
            graph.lock.release()

    def probe(reader: GraphReader) -> int | None:
        taker = threading.Thread(target=take)  # the fold's thread could take the lock meanwhile
        taker.start()
        taker.join()
        return reader.current_file("acme/shop", "pkg/api.py")

    found = queries.read(graph, probe)
    assert held == [True] and found == graph.find(("file", "acme/shop", "pkg/api.py"))


def test_read_runs_again_under_the_lock_when_a_fold_ran_meanwhile(shop_feed: Feed) -> None:
    seen: list[int] = []

    def count_files(reader: GraphReader) -> list[str]:
        seen.append(len(seen))
        if len(seen) == 1:  # a fold lands while the first, lock-free read is under way
            shop_feed.file("pkg/late.py", "pkg.late", [sym("pkg.late.f")])
        return [p for p in ("pkg/api.py", "pkg/late.py") if reader.current_file("acme/shop", p) is not None]

    assert queries.read(shop_feed.graph, count_files) == ["pkg/api.py", "pkg/late.py"]
    assert seen == [0, 1]  # the first answer (without pkg/late.py) was thrown away


def test_read_retries_a_failure_on_a_moving_state_but_not_on_a_still_one(shop_feed: Feed) -> None:
    calls: list[int] = []

    def flaky(reader: GraphReader) -> str:
        calls.append(1)
        if len(calls) == 1:
            shop_feed.file("pkg/late.py", "pkg.late", [sym("pkg.late.f")])
            raise RuntimeError("dictionary changed size during iteration")
        return "ok"

    assert queries.read(shop_feed.graph, flaky) == "ok" and len(calls) == 2

    def broken(reader: GraphReader) -> str:
        raise KeyError("a real bug")

    with pytest.raises(KeyError):
        queries.read(shop_feed.graph, broken)


def test_lookups_the_gateway_makes(shop_feed: Feed) -> None:
    graph = shop_feed.graph
    assert set(queries.indexed_files(graph, "acme/shop")) == {
        "pkg/models.py",
        "pkg/__init__.py",
        "pkg/api.py",
    }
    assert queries.indexed_files(graph, "other/repo") == {}
    info = queries.symbol_of(graph, NodeRef(kind="symbol", name="pkg.api.create", repo="acme/shop"))
    assert info is not None and info.path == "pkg/api.py" and info.valid
    assert queries.symbol_of(graph, NodeRef(kind="file", name="pkg/api.py", repo="acme/shop")) is None
    assert queries.symbol_of(graph, NodeRef(kind="symbol", name="nope", repo="acme/shop")) is None
    assert queries.in_repo(graph, "pkg/api.py", "acme/shop") == NodeRef(
        kind="file", name="pkg/api.py", repo="acme/shop"
    )
    assert queries.in_repo(graph, "create", "acme/shop") == "create"  # a bare name, left to locate
    with pytest.raises(UnknownNodeError):
        queries.in_repo(graph, "pkg/api.py", "other/repo")


def test_last_commit_and_churn_follow_authored_time_not_fold_order(shop_feed: Feed) -> None:
    graph = shop_feed.graph
    assert queries.last_commit(graph, "acme/shop") == ""
    change = [FileChange(path="pkg/api.py", status="modified")]
    shop_feed.commit("b" * 40, T0 + 2 * DAY, change)
    shop_feed.commit("a" * 40, T0 + 1 * DAY, change)  # older, folded later (history read backwards)
    shop_feed.commit("b" * 40, T0 + 2 * DAY, change)  # recorded twice: still one commit
    assert queries.last_commit(graph, "acme/shop") == "b" * 40
    newest = queries.read(graph, lambda r: [c.sha[0] for _, c in r.newest_commits("acme/shop", 5)])
    assert newest == ["b", "a"]
    assert queries.read(graph, lambda r: r.commit_count("acme/shop")) == 2
    assert queries.file_churn(graph, "acme/shop", "pkg/api.py") == 3  # three recorded changes
    assert queries.file_churn(graph, "acme/shop", "pkg/api.py", besides="a" * 40) == 2
    assert queries.file_churn(graph, "acme/shop", "nope.py") == 0


def test_changed_between_after_start_leaves_the_start_commit_out(shop_feed: Feed) -> None:
    change = [FileChange(path="pkg/api.py", status="modified")]
    shop_feed.commit("a" * 40, T0 + DAY, change)
    shop_feed.commit("b" * 40, T0 + 2 * DAY, change)
    end = T0 + 3 * DAY
    both = queries.changed_between(shop_feed.graph, "a" * 40, end)
    after = queries.changed_between(shop_feed.graph, "a" * 40, end, after_start=True)
    assert [c.sha[0] for c in both.commits] == ["a", "b"] and [c.sha[0] for c in after.commits] == ["b"]
