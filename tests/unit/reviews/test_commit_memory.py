"""A recorded commit's message is a memory: its sha, date and changed files, linked in the graph."""

from __future__ import annotations

from datetime import UTC, datetime

from codememory.codegraph import CodeGraph
from codememory.codegraph.queries import neighbours
from codememory.events import CommitRecorded, FileChange, Symbol, SymbolsExtracted, new_envelope
from codememory.memory import memory_from_envelope

AT = datetime(2026, 3, 4, 12, tzinfo=UTC).timestamp()
COMMIT = CommitRecorded(
    repo="acme/shop",
    sha="0123456789abcdef0123456789abcdef01234567",
    parents=("f" * 40,),
    authored_at=AT,
    message="Retry payments only on 5xx\n\nA 4xx is the customer's card: retrying it charges twice.",
    files=(
        FileChange(path="pay/retry.py", symbols=("pay.retry.should_retry",)),
        FileChange(path="old.py", status="deleted"),
    ),
)


def _draft(event: CommitRecorded):  # type: ignore[no-untyped-def]
    return memory_from_envelope(new_envelope(event, event_id="c1", tenant="t", occurred_at=datetime.now(UTC)))


def test_the_message_becomes_a_commit_memory_with_sha_and_date() -> None:
    draft = _draft(COMMIT)
    assert draft is not None and draft.memory_type == "commit" and draft.memory_id == "c1"
    assert draft.text.startswith("Retry payments only on 5xx") and "charges twice" in draft.text
    assert "commit 0123456789ab on 2026-03-04" in draft.text and "pay.retry.should_retry" in draft.text
    assert draft.paths == ("pay/retry.py",) and draft.created_at == AT
    assert draft.metadata == {"sha": COMMIT.sha, "date": "2026-03-04"}


def test_merges_and_empty_messages_are_not_memories() -> None:
    import msgspec

    assert _draft(msgspec.structs.replace(COMMIT, parents=("a" * 40, "b" * 40))) is None
    assert _draft(msgspec.structs.replace(COMMIT, message="  ")) is None


def test_the_graph_links_the_commit_memory_to_the_code_it_changed() -> None:
    graph = CodeGraph("t")
    mod = Symbol(qualname="pay.retry", name="retry", kind="module", start_line=1, end_line=20)
    fn = Symbol(
        qualname="pay.retry.should_retry",
        name="should_retry",
        kind="function",
        start_line=2,
        end_line=9,
        parent="pay.retry",
    )
    facts = SymbolsExtracted(
        repo="acme/shop",
        path="pay/retry.py",
        content_hash="h",
        language="python",
        module="pay.retry",
        symbols=(mod, fn),
    )
    graph.apply(new_envelope(facts, event_id="f1", tenant="t"), 1)
    graph.apply(new_envelope(COMMIT, event_id="c1", tenant="t"), 2)
    near = {(n.node.kind, n.node.name) for n in neighbours(graph, "c1", edge_kinds=["mentions"])}
    assert ("file", "pay/retry.py") in near and ("symbol", "pay.retry.should_retry") in near
