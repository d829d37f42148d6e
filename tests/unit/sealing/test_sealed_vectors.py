"""A memory's embedding and its text's digest are sealed with the text's key, and go when it goes."""

from __future__ import annotations

import uuid

import msgspec
import numpy as np

from codememory.embed.texts import embedded_events, jobs_for
from codememory.events import (
    CommitRecorded,
    Envelope,
    MemoryEmbedded,
    MemoryScope,
    MemoryStored,
    PromptSubmitted,
    decode_envelope,
    encode_envelope,
    new_envelope,
)
from codememory.memory import text_digest
from codememory.sealing import ERASED, Sealer, destroy, plan


def _vector(seed: int, dtype: type = np.float32) -> tuple[float, ...]:
    v = np.random.default_rng(seed).standard_normal(384).astype(dtype)
    return tuple(float(x) for x in v)


def _embedded(source: Envelope, vector: tuple[float, ...]) -> list[Envelope]:
    return embedded_events(jobs_for([source]), [vector], "m")


def test_a_vector_and_its_digest_are_not_in_the_bytes_and_open_back_bit_for_bit(sealer: Sealer) -> None:
    text = "the staging database is reset on Mondays"
    stored = MemoryStored(memory_id=str(uuid.uuid4()), text=text, scope=MemoryScope(user="alice"))
    source = new_envelope(stored, event_id=str(uuid.uuid4()), tenant="t")
    encode_envelope(source)
    for dtype in (np.float32, np.float64):  # float32 packs in 4 bytes, anything else keeps every bit
        (embedded,) = _embedded(source, _vector(1, dtype))
        assert (
            isinstance(embedded.payload, MemoryEmbedded)
            and embedded.payload.record == f"m:{stored.memory_id}"
        )
        data = encode_envelope(embedded)
        raw = msgspec.json.decode(data)["payload"]
        assert raw["vector"] == [] and raw["sealed_vector"].startswith("cmseal1:")
        assert raw["text_digest"] != text_digest(text) and text_digest(text).encode() not in data
        assert repr(embedded.payload.vector[0]).encode() not in data
        assert decode_envelope(data) == embedded
    assert len(data) < len(msgspec.json.encode(embedded))  # smaller than the floats as JSON text


def test_erasing_the_memory_leaves_no_vector_and_no_digest(sealer: Sealer) -> None:
    stored = MemoryStored(
        memory_id=str(uuid.uuid4()), text="bob's home address", scope=MemoryScope(user="bob")
    )
    source = new_envelope(stored, event_id=str(uuid.uuid4()), tenant="t")
    encode_envelope(source)
    data = encode_envelope(_embedded(source, _vector(2))[0])
    destroy(sealer.keys, plan(sealer.keys, "t", "memory", stored.memory_id))
    opened = decode_envelope(data).payload
    assert isinstance(opened, MemoryEmbedded)
    assert opened.vector == () and opened.sealed_vector == "" and opened.text_digest == ERASED
    late = encode_envelope(_embedded(source, _vector(3))[0])  # embedded after the erasure: erased too
    assert msgspec.json.decode(late)["payload"]["sealed_vector"] == ""


def test_the_vector_of_one_session_event_goes_with_its_leaf(sealer: Sealer) -> None:
    prompts = [
        new_envelope(
            PromptSubmitted(session_id="s1", agent="a", prompt=f"prompt {i}"), event_id=f"e{i}", tenant="t"
        )
        for i in range(2)
    ]
    for p in prompts:
        encode_envelope(p)
    vectors = [encode_envelope(_embedded(p, _vector(i))[0]) for i, p in enumerate(prompts)]
    destroy(sealer.keys, plan(sealer.keys, "t", "memory", "e0", session="s1"))
    gone, kept = (decode_envelope(v).payload for v in vectors)
    assert isinstance(gone, MemoryEmbedded) and isinstance(kept, MemoryEmbedded)
    assert gone.vector == () and gone.text_digest == ERASED
    assert kept.vector == _vector(1) and kept.text_digest == text_digest("prompt 1")


def test_a_commit_vector_stays_clear_and_makes_no_key(sealer: Sealer) -> None:
    commit = CommitRecorded(repo="r", sha="a" * 40, message="fix the retry budget", authored_at=1.0)
    (embedded,) = _embedded(new_envelope(commit, event_id="c1", tenant="t"), _vector(4))
    assert isinstance(embedded.payload, MemoryEmbedded) and embedded.payload.record == ""
    assert decode_envelope(encode_envelope(embedded)) == embedded
    assert sealer.keys.store.values("t") == []


def test_an_embedding_id_does_not_depend_on_the_text(sealer: Sealer) -> None:
    prompt = new_envelope(PromptSubmitted(session_id="s1", agent="a", prompt="x"), event_id="e1", tenant="t")
    other = new_envelope(PromptSubmitted(session_id="s1", agent="a", prompt="y"), event_id="e1", tenant="t")
    assert _embedded(prompt, _vector(5))[0].event_id == _embedded(other, _vector(5))[0].event_id
