"""The recaller: one embedding per query text, and every candidate scored on all its parts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import msgspec

from codememory.lexical import SparseEncoder, code_terms
from codememory.memory.points import point_id
from codememory.recall import Recaller, RecallQuery, parse_weights
from codememory.vectorstore import EdgeVectorIndex, IndexPoint


class CountingEmbedder:
    """A 4-dimensional stand-in for the model that counts its calls."""

    model_id = "counting"
    dim = 4

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls += 1
        return [(1.0, 0.0, 0.0, float(len(t) % 3)) for t in texts]


def test_the_same_text_is_embedded_once_per_recaller(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    embedder = CountingEmbedder()
    recaller = Recaller(index, embedder, SparseEncoder())
    query = RecallQuery(tenant="t", text="why do we round amounts")
    recaller.recall(query)
    recaller.recall(RecallQuery(tenant="t", text="why do we round amounts", types=("decision",)))
    assert embedder.calls == 1
    recaller.recall(RecallQuery(tenant="t", text="another question"))
    assert embedder.calls == 2
    index.close()


class FixedEmbedder:
    """Every query points along the first axis."""

    model_id = "fixed"
    dim = 4

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        return [(1.0, 0.0, 0.0, 0.0) for _ in texts]


def _stored(n: int, text: str, dense: tuple[float, ...]) -> IndexPoint:
    sparse = SparseEncoder().encode_document(code_terms(text))
    payload = {"tenant": "t", "state": "active", "text": text, "created_at": 1.0e9}
    return IndexPoint(id=str(uuid.UUID(int=n)), payload=payload, dense=dense, sparse=sparse)


def test_every_candidate_comes_with_its_payload_and_both_scores(tmp_path: Path) -> None:
    """Dense-only hits (their payloads read after the search) and lexical-only hits (their dense
    similarity computed for just their ids) are scored and returned like the others."""
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    index.upsert(
        [
            _stored(1, "nothing in common one", (0.99, 0.14, 0.0, 0.0)),
            _stored(2, "nothing in common two", (0.97, 0.24, 0.0, 0.0)),
            _stored(3, "nothing in common three", (0.95, 0.31, 0.0, 0.0)),
            _stored(4, "the retry budget of the payment gateway", (0.6, 0.8, 0.0, 0.0)),
            _stored(5, "unrelated and far", (0.0, 0.0, 1.0, 0.0)),
        ]
    )
    query = RecallQuery(tenant="t", text="retry budget", limit=1)  # three candidates from each list
    by_dense = Recaller(
        index, FixedEmbedder(), SparseEncoder(), parse_weights("lexical=0,feedback=0"), candidates=3
    )
    (top,) = by_dense.recall(query)
    assert top.memory_id == str(uuid.UUID(int=1)) and top.payload["text"] == "nothing in common one"
    assert top.parts.lexical == 0.0 and top.parts.dense > 0.95
    by_terms = Recaller(
        index, FixedEmbedder(), SparseEncoder(), parse_weights("dense=0,feedback=0"), candidates=3
    )
    (top,) = by_terms.recall(query)  # not among the three nearest: its dense part is asked for by id
    assert top.memory_id == str(uuid.UUID(int=4))
    assert top.payload["text"] == "the retry budget of the payment gateway"
    assert top.parts.lexical == 1.0 and abs(top.parts.dense - 0.6) < 1e-3
    index.close()


def _lexical_only(n: int, text: str) -> IndexPoint:
    """A memory whose embedding has not arrived: only BM25 can find it."""
    sparse = SparseEncoder().encode_document(code_terms(text))
    payload = {"tenant": "t", "state": "active", "text": text, "created_at": 1.0e9}
    return IndexPoint(id=str(uuid.UUID(int=n)), payload=payload, sparse=sparse)


class _SparseSearches:
    """The index, its lexical searches recorded (the paired first search is not one of them)."""

    def __init__(self, inner: EdgeVectorIndex) -> None:
        self.inner = inner
        self.asked: list[tuple[frozenset[str], int]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def search_sparse(self, sparse: object, flt: object, limit: int, with_payload: bool = True) -> object:
        self.asked.append((frozenset(flt.ids), limit))  # type: ignore[attr-defined]
        return self.inner.search_sparse(sparse, flt, limit, with_payload)  # type: ignore[arg-type]


def test_relevance_feedback_rescores_a_candidate_that_shares_the_topics_words(tmp_path: Path) -> None:
    """By default the widened query scores the candidates the first searches found, and only them (a
    search restricted to their ids): a memory the dense search found that shares the top hits' words
    but none of the question's gets a lexical part; one that shares neither does not; a memory no
    search found, and another tenant's, stay out however many topic words they hold."""
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    other_tenant = _stored(6, "payment gateway client retry budget jitter backs off", (1.0, 0.0, 0.0, 0.0))
    index.upsert(
        [
            _stored(1, "the retry budget lives in the payment gateway client", (0.99, 0.14, 0.0, 0.0)),
            _stored(
                2, "retry budget raised for the payment gateway after the outage", (0.97, 0.24, 0.0, 0.0)
            ),
            _stored(3, "payment gateway client backs off with jitter", (0.9, 0.4, 0.0, 0.0)),  # no query word
            _stored(4, "the release notes mention dark mode", (0.9, 0.0, 0.4, 0.0)),
            _lexical_only(5, "the payment gateway client pins its TLS roots"),  # no vector, no query word
            msgspec.structs.replace(other_tenant, payload={**other_tenant.payload, "tenant": "u"}),
        ]
    )
    query = RecallQuery(tenant="t", text="retry budget", limit=10)
    topic, unrelated = str(uuid.UUID(int=3)), str(uuid.UUID(int=4))
    plain = Recaller(index, FixedEmbedder(), SparseEncoder(), parse_weights("feedback=0")).recall(query)
    before = {h.memory_id: h for h in plain}
    spied = _SparseSearches(index)
    widened = {h.memory_id: h for h in Recaller(spied, FixedEmbedder(), SparseEncoder()).recall(query)}  # type: ignore[arg-type]
    assert before[topic].parts.lexical == 0.0 and widened[topic].parts.lexical > 0.0
    assert widened[unrelated].parts.lexical == 0.0 and widened[topic].parts.total > before[topic].parts.total
    assert set(widened) == set(before)  # no search over the tenant: only the candidates
    ((ids, limit),) = spied.asked
    assert ids == {str(uuid.UUID(int=n)) for n in (1, 2, 3, 4)} and limit == len(ids)
    index.close()


def test_relevance_feedback_finds_a_memory_that_shares_no_word_with_the_query(tmp_path: Path) -> None:
    """With ``feedback_new``, the widened query also searches the tenant: a memory that neither search
    found (no vector yet, no word of the question) becomes a candidate through the topic's words."""
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    index.upsert(
        [
            _lexical_only(1, "the retry budget lives in the payment gateway client"),
            _lexical_only(2, "retry budget raised for the payment gateway after the outage"),
            _lexical_only(3, "payment gateway client backs off with jitter"),  # no query word
            _lexical_only(4, "the release notes mention dark mode"),
        ]
    )
    query = RecallQuery(tenant="t", text="retry budget", limit=10)
    topic = str(uuid.UUID(int=3))
    plain = Recaller(index, FixedEmbedder(), SparseEncoder(), parse_weights("feedback=0"))
    assert topic not in [h.memory_id for h in plain.recall(query)]
    rescored = Recaller(index, FixedEmbedder(), SparseEncoder(), parse_weights("feedback=0.3"))
    assert topic not in [h.memory_id for h in rescored.recall(query)]
    widened = Recaller(index, FixedEmbedder(), SparseEncoder(), parse_weights("feedback=0.3,feedback_new=10"))
    hits = {h.memory_id: h for h in widened.recall(query)}
    assert topic in hits and hits[topic].parts.lexical > 0.0
    assert str(uuid.UUID(int=4)) not in hits  # shares nothing with the topic either
    ranked = [h.memory_id for h in widened.recall(query)]
    assert ranked.index(topic) > ranked.index(str(uuid.UUID(int=1)))  # the query's own words weigh more
    index.close()


def test_feedback_does_not_widen_a_query_no_memory_shares_a_word_with(tmp_path: Path) -> None:
    """The top hits are dense-only: their shared words would be the only lexical evidence, so a
    memory holding just those words would count as a full lexical match and come first."""
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    index.upsert(
        [
            _stored(1, "never block on a peripheral in the firmware loop", (0.99, 0.14, 0.0, 0.0)),
            _stored(2, "a peripheral driver awaits its interrupt in the firmware", (0.97, 0.24, 0.0, 0.0)),
            _lexical_only(3, "grep peripheral firmware"),  # the top hits' shared words, nothing else
        ]
    )
    query = RecallQuery(tenant="t", text="can I spin until the ADC conversion completes", limit=10)
    hits = Recaller(index, FixedEmbedder(), SparseEncoder(), parse_weights("feedback=0.3")).recall(query)
    assert [h.memory_id for h in hits] == [str(uuid.UUID(int=1)), str(uuid.UUID(int=2))]
    assert all(h.parts.lexical == 0.0 for h in hits)
    index.close()


def test_a_query_that_does_not_crowd_keeps_a_topics_third_hit(tmp_path: Path) -> None:
    """Topic crowding moves a topic's third stated hit below the others (a short list of answers);
    a budgeted pack such as session context asks for the hits uncrowded."""
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    texts = {
        1: ("define new features as feast feature views", (1.0, 0.05, 0.0, 0.0)),
        2: ("after changing a feast feature view, run feast apply", (1.0, 0.1, 0.0, 0.0)),
        3: ("feast feature definitions live in feature_repo/", (1.0, 0.15, 0.0, 0.0)),
        4: ("the online store is redis", (0.6, 0.0, 0.8, 0.0)),
        5: ("training jobs run on the a100 queue", (0.5, 0.0, 0.0, 0.87)),
    }
    points = []
    for n, (text, dense) in texts.items():
        point = _stored(n, text, dense)  # stored as the projection stores a memory: its own point id
        payload = {**point.payload, "type": "prompt", "memory_id": point.id}
        points.append(msgspec.structs.replace(point, id=point_id("t", point.id), payload=payload))
    index.upsert(points)
    recaller = Recaller(
        index, FixedEmbedder(), SparseEncoder(), parse_weights("lexical=0,feedback=0,link=0,restated=0")
    )
    crowded = recaller.recall(RecallQuery(tenant="t", text="feast", limit=3))
    plain = recaller.recall(RecallQuery(tenant="t", text="feast", limit=3, crowd=False))
    assert [h.memory_id for h in plain] == [str(uuid.UUID(int=n)) for n in (1, 2, 3)]
    assert [h.memory_id for h in crowded] == [str(uuid.UUID(int=n)) for n in (1, 2, 4)]
    index.close()


def test_recall_leaves_no_cyclic_garbage(tmp_path: Path) -> None:
    """What the gateway's serving collector rests on (``collector.ServingCollector``): a recall frees
    all it made by reference counting, so freezing what survives a collection holds back nothing."""
    import gc

    from codememory.vectorstore import PayloadCachedIndex

    shard = EdgeVectorIndex(tmp_path / "shard", 4)
    points = []
    for n in range(1, 41):  # sessions of 5, each memory naming the one before (links expand hits)
        text = f"rule {n}: round {'amounts' if n % 2 else 'prices'} half-even in service {n % 7}"
        point = _stored(n, text, (1.0, n / 40, float(n % 3), 0.0))
        payload = {**point.payload, "type": "prompt", "memory_id": point.id, "session_id": f"s{n // 5}"}
        if n % 5:
            payload["previous_id"] = str(uuid.UUID(int=n - 1))
        points.append(msgspec.structs.replace(point, id=point_id("t", point.id), payload=payload))
    shard.upsert(points)
    recaller = Recaller(PayloadCachedIndex(shard, 100), FixedEmbedder(), SparseEncoder())
    questions = [f"how are {w} rounded in service {n}" for n in range(7) for w in ("amounts", "prices")]
    recaller.recall(RecallQuery(tenant="t", text=questions[0]))  # imports and caches made once
    gc.collect()
    gc.disable()
    try:
        hits = [recaller.recall(RecallQuery(tenant="t", text=q)) for q in questions]
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert all(hits) and unreachable == 0
    shard.close()
