from __future__ import annotations

from datetime import UTC, datetime

from graphfeed import DAY, T0, Feed, edges, sym

from codememory.events import MemoryRefined, ToolObserved, new_envelope


def mentioned(feed: Feed, memory_id: str) -> set[str]:
    return {d for s, d in edges(feed.graph, "mentions") if s == memory_id}


def test_paths_link_by_relative_absolute_and_suffix_forms(shop_feed: Feed) -> None:
    shop_feed.memory(
        "m1", "touched /home/dev/shop/pkg/api.py and models.py", T0 + DAY, paths=("pkg/__init__.py",)
    )
    assert {"pkg/api.py", "pkg/models.py", "pkg/__init__.py"} <= mentioned(shop_feed, "m1")


def test_a_bare_file_name_shared_by_two_files_links_to_neither(shop_feed: Feed) -> None:
    shop_feed.file("web/api.py", "web.api", [])
    shop_feed.memory("m1", "broke api.py again", T0 + DAY)
    assert not {"pkg/api.py", "web/api.py"} & mentioned(shop_feed, "m1")


def test_symbols_link_by_qualname_dotted_suffix_and_code_looking_names(shop_feed: Feed) -> None:
    text = "pkg.api.create calls Model.validate; unused_thing is dead; helper and `validate` too"
    shop_feed.memory("m1", text, T0 + DAY)
    found = mentioned(shop_feed, "m1")
    assert {"pkg.api.create", "pkg.models.Model.validate", "pkg.api.unused_thing"} <= found
    assert "pkg.models.helper" not in found  # a plain word in prose


def test_in_session_and_forgetting(shop_feed: Feed) -> None:
    shop_feed.memory("m1", "pkg.api.create", T0 + DAY, session="s9")
    assert ("m1", "s9") in edges(shop_feed.graph, "in_session")
    shop_feed.forget("m1")
    assert ("memory", "m1") not in shop_feed.graph.index
    assert not mentioned(shop_feed, "m1")
    shop_feed.memory("m1", "pkg.api.create", T0 + DAY)  # a forgotten id is not resurrected
    assert ("memory", "m1") not in shop_feed.graph.index


def test_a_memory_stored_before_its_code_is_linked_when_the_code_arrives(feed: Feed) -> None:
    feed.memory("m1", "the retry_budget in net/client.py is too low", T0)
    assert not mentioned(feed, "m1")
    feed.file("net/client.py", "net.client", [sym("net.client.retry_budget")])
    assert mentioned(feed, "m1") == {"net/client.py", "net.client.retry_budget"}


def test_observations_become_linked_memories_and_refinement_relinks(shop_feed: Feed) -> None:
    observed = ToolObserved(
        session_id="s1",
        agent="claude",
        tool="Edit",
        kind="edit",
        paths=("pkg/api.py",),
        summary="edited create",
    )
    envelope = new_envelope(
        observed, event_id="obs1", tenant="t1", occurred_at=datetime.fromtimestamp(T0, UTC)
    )
    shop_feed.emit(envelope.payload)
    memory_id = shop_feed.log[-1][0].event_id
    assert "pkg/api.py" in mentioned(shop_feed, memory_id)
    shop_feed.emit(MemoryRefined(memory_id=memory_id, text="see unused_thing"))
    assert mentioned(shop_feed, memory_id) == {"pkg/api.py", "pkg.api.unused_thing"}


_TEXTS = (
    "touched C:\\work\\net\\client.py, ./net/retry.py and ../up/x.cfg; net/client.py again",
    "net.client.retry_budget calls `send` and Pool::acquire(); retry_budget twice, a b cd abc",
    "plain prose about the budget and the backoff of service7 with jittered retries retries",
    "$scope.value_x, _private, x9, Session.request(), v2.json, README.md, .hidden, a.b.c.d",
)


def test_before_any_code_a_memory_waits_as_the_lookups_would_have_made_it(feed: Feed) -> None:
    # the graph has no repository yet (replay folds memories first): only the waiters are written;
    # they are those of a graph whose one repository defines none of the names
    coded = Feed()
    coded.file("other/unrelated.go", "other.unrelated", [sym("other.unrelated.Zzz")])
    for i, text in enumerate(_TEXTS):
        feed.memory(f"m{i}", text, T0, paths=("src/given.py",))
        coded.memory(f"m{i}", text, T0, paths=("src/given.py",))
    assert not feed.graph.repos
    assert feed.graph.mention_waiters == coded.graph.mention_waiters
    assert "retry_budget" in feed.graph.mention_waiters and "client.py" in feed.graph.mention_waiters
    for f in (feed, coded):  # and the code arriving later links both alike
        f.file("net/client.py", "net.client", [sym("net.client.retry_budget"), sym("net.client.send")])
    assert mentioned(feed, "m0") == mentioned(coded, "m0") == {"net/client.py"}
    assert mentioned(feed, "m1") == mentioned(coded, "m1") == {"net.client.retry_budget", "net.client.send"}
