"""The memory projection on a real Qdrant Edge shard: idempotent, tenant-safe, and equal after a rebuild."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime
from pathlib import Path

from codememory.events import (
    Envelope,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryStored,
    PromptSubmitted,
    new_envelope,
)
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, memory_id_of, point_ids, text_digest
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest

DIM = 8
PROMPT = str(uuid.UUID(int=99))


def _vec(seed: int) -> tuple[float, ...]:
    raw = [math.sin(seed * (i + 1)) for i in range(DIM)]
    norm = math.sqrt(sum(x * x for x in raw))
    return tuple(x / norm for x in raw)


def _projection(path: Path) -> MemoryProjection:
    return MemoryProjection(
        EdgeVectorIndex(path / "shard", DIM), SparseEncoder(), Position(path / "position.json")
    )


def _history() -> list[tuple[int, Envelope]]:
    a, b, c = (str(uuid.UUID(int=i)) for i in (1, 2, 3))
    events = [
        MemoryStored(memory_id=a, text="tokens are validated in middleware"),
        MemoryStored(memory_id=b, text="retry budget is three"),
        MemoryEmbedded(
            memory_id=a,
            model="m",
            text_digest=text_digest("tokens are validated in middleware"),
            vector=_vec(1),
        ),
        MemoryRefined(memory_id=b, text="retry budget is five", importance=0.9),
        MemoryEmbedded(
            memory_id=b, model="m", text_digest=text_digest("retry budget is three"), vector=_vec(2)
        ),
        MemoryEmbedded(
            memory_id=b, model="m", text_digest=text_digest("retry budget is five"), vector=_vec(3)
        ),
        MemoryStored(memory_id=c, text="temporary"),
        MemoryDeprecated(memory_id=a, reason="old"),
        MemoryForgotten(memory_id=c),
    ]
    envelopes = [
        new_envelope(e, event_id=str(uuid.UUID(int=100 + i)), tenant="t") for i, e in enumerate(events)
    ]
    prompt = new_envelope(
        PromptSubmitted(session_id="s", agent="claude", prompt="fix the login bug"),
        event_id=PROMPT,
        tenant="t",
    )
    return [(i + 1, env) for i, env in enumerate([*envelopes, prompt])]


def test_fold_gives_the_expected_state(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    projection.apply_batch(_history())
    a, b, c = (str(uuid.UUID(int=i)) for i in (1, 2, 3))
    points = {
        memory_id_of(p): p for p in projection.index.get(point_ids("t", [a, b, c, PROMPT]), with_vectors=True)
    }
    assert points[a].payload["state"] == "deprecated" and points[a].dense is not None
    assert points[b].payload["text"] == "retry budget is five" and points[b].payload["importance"] == 0.9
    assert points[b].payload["embedded_digest"] == text_digest("retry budget is five")
    assert (
        points[b].dense is not None and abs(points[b].dense[0] - _vec(3)[0]) < 1e-5
    )  # the stale vector lost
    assert points[c].payload["state"] == "forgotten" and "text" not in points[c].payload
    assert points[PROMPT].payload["type"] == "prompt" and points[PROMPT].dense is None
    assert projection.last_seq == 10


def test_redelivery_changes_nothing(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    history = _history()
    projection.apply_batch(history)
    digest = index_digest(projection.index, IndexFilter())
    for seq, envelope in history:  # bypass the position: every event applied again, one by one
        projection.apply(seq, envelope)
    assert index_digest(projection.index, IndexFilter()) == digest
    assert projection.apply_batch(history) == 0


def test_a_redelivered_store_cannot_resurrect_a_forgotten_memory(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    history = _history()
    projection.apply_batch(history)
    stored_c = history[6]
    projection.apply(*stored_c)
    (point,) = projection.index.get(point_ids("t", [str(uuid.UUID(int=3))]))
    assert point.payload["state"] == "forgotten"


def test_rebuild_from_the_log_equals_the_live_projection(tmp_path: Path) -> None:
    live = _projection(tmp_path / "live")
    history = _history()
    for chunk in (history[:3], history[3:7], history[7:]):
        live.apply_batch(chunk)
    rebuilt = _projection(tmp_path / "rebuilt")
    rebuilt.apply_batch(history)
    assert index_digest(live.index, IndexFilter()) == index_digest(rebuilt.index, IndexFilter())


def test_position_survives_a_restart(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    projection.apply_batch(_history()[:4])
    projection.index.close()
    reopened = _projection(tmp_path)
    assert reopened.last_seq == 4
    assert reopened.apply_batch(_history()) == len(_history()) - 4


def test_other_tenants_events_never_touch_a_memory(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    mid = str(uuid.uuid4())
    projection.apply(
        1,
        new_envelope(
            MemoryStored(memory_id=mid, text="mine"), event_id=str(uuid.UUID(int=1)), tenant="alice"
        ),
    )
    projection.apply(
        2,
        new_envelope(
            MemoryRefined(memory_id=mid, text="hacked"), event_id=str(uuid.UUID(int=2)), tenant="mallory"
        ),
    )
    projection.apply(
        3, new_envelope(MemoryForgotten(memory_id=mid), event_id=str(uuid.UUID(int=3)), tenant="mallory")
    )
    projection.apply(
        4,
        new_envelope(
            MemoryStored(memory_id=mid, text="overwrite"), event_id=str(uuid.UUID(int=4)), tenant="mallory"
        ),
    )
    (point,) = projection.index.get(point_ids("alice", [mid]))
    assert (
        point.payload["text"] == "mine"
        and point.payload["tenant"] == "alice"
        and point.payload["state"] == "active"
    )


def test_a_creation_redelivered_after_a_refinement_does_not_revert_it(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    history = _history()
    projection.apply_batch(history)
    stored_b = history[1]
    projection.apply(len(history) + 1, stored_b[1])  # the same event again, later in the log (past dedupe)
    (point,) = projection.index.get(point_ids("t", [str(uuid.UUID(int=2))]))
    assert point.payload["text"] == "retry budget is five"


def test_forgetting_a_memory_takes_it_out_of_its_successors_context(tmp_path: Path) -> None:
    """Live (the text, then forgotten) and replayed after erasure (``[erased]``, then forgotten) agree."""
    ids = [str(uuid.UUID(int=200 + i)) for i in range(3)]
    at = datetime(2026, 11, 24, tzinfo=UTC)

    def session(middle: str) -> list[tuple[int, Envelope]]:
        texts = ["keep the retry budget at three", middle, "rename the parser module"]
        events = [
            new_envelope(
                PromptSubmitted(session_id="s", agent="a", prompt=t), event_id=i, tenant="t", occurred_at=at
            )
            for i, t in zip(ids, texts, strict=True)
        ]
        forget = new_envelope(MemoryForgotten(memory_id=ids[1]), event_id=str(uuid.UUID(int=300)), tenant="t")
        return list(enumerate([*events, forget], 1))

    live, replayed = _projection(tmp_path / "live"), _projection(tmp_path / "replayed")
    history = session("my sister's birthday party is at the lakehouse")
    live.apply_batch(history[:3])
    successor = live.index.get(point_ids("t", [ids[2]]))[0]
    assert "lakehouse" in successor.payload["context"] and successor.payload["previous_id"] == ids[1]
    live.apply_batch(history[3:])
    for event in session("[erased]"):
        replayed.apply_batch([event])  # one at a time: the forget in a batch of its own, as live
    (after,) = live.index.get(point_ids("t", [ids[2]]), with_vectors=True)
    assert after.payload["context"] == "" and after.payload["seq"] == successor.payload["seq"]
    vocabulary = live.encoder.encode_query("lakehouse")
    assert not set(vocabulary.indices) & set(after.sparse.indices if after.sparse else [])
    assert index_digest(live.index, IndexFilter()) == index_digest(replayed.index, IndexFilter())
