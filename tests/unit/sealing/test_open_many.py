"""A batch opened at once (``Sealer.open_many``, ``KeyReads.for_opening_many``) opens exactly as
``open`` opens each envelope: known, unknown, erased, punctured and user-erased records mixed, with the
keys of the whole batch found in one store lookup, and an erasure always winning over what was found."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from codememory.events import (
    Envelope,
    MemoryEmbedded,
    MemoryScope,
    MemoryStored,
    PromptSubmitted,
    new_envelope,
)
from codememory.sealing import (
    ERASED,
    UNAVAILABLE,
    FileKeyStore,
    KeyStore,
    MemoryKeyStore,
    Sealer,
    destroy,
    plan,
)
from codememory.sealing.keys import KeyRing


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[KeyStore]:
    if request.param == "memory":
        yield MemoryKeyStore()
        return
    keys = FileKeyStore(tmp_path / "keys", recheck_s=0)  # the helper looks up batches of 64 names or more
    yield keys
    keys.close()


def _memory(text: str, user: str = "alice", tenant: str = "t") -> Envelope:
    event = MemoryStored(
        memory_id=str(uuid.uuid4()), text=text, scope=MemoryScope(user=user, session_id="s1")
    )
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant=tenant)


def _embedded(stored: Envelope) -> Envelope:
    memory_id = stored.payload.memory_id  # type: ignore[union-attr]
    event = MemoryEmbedded(
        memory_id=memory_id, model="m", text_digest="d", vector=(0.5, -0.25), record=f"m:{memory_id}"
    )
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant=stored.tenant)


def _prompts(session: str, n: int) -> list[Envelope]:
    return [
        new_envelope(
            PromptSubmitted(session_id=session, agent="a", user="alice", prompt=f"prompt {i} of {session}"),
            event_id=f"{session}-e{i}",
            tenant="t",
        )
        for i in range(n)
    ]


def _mixed(store: KeyStore) -> tuple[list[Envelope], list[Envelope], dict[str, int]]:
    """A batch of every kind of record, sealed, with some erased: (clear, sealed, index by role)."""
    writer = Sealer(store)
    known = [_memory(f"kept {i}") for i in range(24)]
    clear = known + [_embedded(e) for e in known[:8]]
    gone, bob = _memory("erased memory"), _memory("bob's memory", user="bob")
    twice, interrupted = _prompts("s2", 6), _prompts("s3", 3)
    clear += [gone, _embedded(gone), bob, *twice, *interrupted]
    sealed = [writer.seal(e) for e in clear]
    stranger = _memory("sealed with keys this store never saw")
    clear.append(stranger)
    sealed.append(Sealer(MemoryKeyStore()).seal(stranger))
    clear.append(new_envelope(MemoryStored(memory_id="plain", text=""), event_id="p", tenant="t"))
    sealed.append(clear[-1])  # nothing to seal: passes through
    writer.flush()
    ring = KeyRing(store)
    destroy(ring, plan(ring, "t", "memory", gone.payload.memory_id))  # type: ignore[union-attr]
    destroy(ring, plan(ring, "t", "user", "bob"))
    for leaf in ("s2-e1", "s2-e4"):  # two punctures: the live frontier is epoch 2, a second lookup
        destroy(ring, plan(ring, "t", "memory", leaf, session="s2"))
    real_destroy = store.destroy
    store.destroy = lambda tenant, name: False  # type: ignore[method-assign]  # crashed mid-puncture
    assert ring.puncture("t", "s:s3", "s3-e0")
    store.destroy = real_destroy  # type: ignore[method-assign]
    where = {"gone": clear.index(gone), "bob": clear.index(bob), "s2": clear.index(twice[0])}
    where |= {"s3": clear.index(interrupted[0]), "stranger": clear.index(stranger)}
    return clear, sealed, where


def test_a_mixed_batch_opens_as_each_envelope_opens_alone(store: KeyStore) -> None:
    clear, sealed, at = _mixed(store)
    one_by_one = [Sealer(store).open(e) for e in sealed]  # a fresh reader per envelope: nothing cached
    batch = Sealer(store).open_many(sealed)
    assert batch == one_by_one
    texts = [getattr(e.payload, "text", getattr(e.payload, "prompt", None)) for e in batch]
    assert texts[at["gone"]] == ERASED and batch[at["gone"] + 1].payload.vector == ()  # type: ignore[union-attr]
    assert texts[at["bob"]] == ERASED and texts[at["stranger"]] == UNAVAILABLE
    assert texts[at["s2"] : at["s2"] + 6] == [
        "prompt 0 of s2",
        ERASED,
        "prompt 2 of s2",
        "prompt 3 of s2",
        ERASED,
        "prompt 5 of s2",
    ]
    assert texts[at["s3"] : at["s3"] + 3] == [ERASED, "prompt 1 of s3", "prompt 2 of s3"]
    kept = [
        i for i, e in enumerate(clear) if i not in (at["gone"], at["gone"] + 1, at["bob"], at["stranger"])
    ]
    kept = [i for i in kept if not at["s2"] <= i < at["s3"] + 3]
    assert [batch[i] for i in kept] == [clear[i] for i in kept]


def test_a_batch_is_looked_up_at_once_not_record_by_record(store: KeyStore) -> None:
    clear, sealed, _ = _mixed(store)
    calls: list[int] = []
    lookup_many, get = store.lookup_many, store.get
    store.lookup_many = lambda items: calls.append(len(items)) or lookup_many(items)  # type: ignore[method-assign, func-returns-value]
    gets: list[str] = []
    store.get = lambda tenant, name: gets.append(name) or get(tenant, name)  # type: ignore[method-assign, func-returns-value]
    Sealer(store).open_many(sealed)
    records = len({(e.tenant, getattr(e.payload, "memory_id", "") or e.payload.session_id) for e in clear})  # type: ignore[union-attr]
    assert len(calls) == 2 and calls[0] == 2 * (records - 1)  # the plain memory has none; s2 walks on
    assert all(name.startswith(("kek:", "rec:m:")) for name in gets)  # users' keys; bob's record alone
    assert len([name for name in gets if name.startswith("rec:")]) <= 2  # ``erased`` asks about bob's


def _forty_sealed(store: KeyStore) -> tuple[list[Envelope], list[Envelope]]:
    """Forty memories in the clear, and as a writer sealed them into ``store``."""
    envelopes = [_memory(f"text {i}") for i in range(40)]
    writer = Sealer(store)
    sealed = [writer.seal(e) for e in envelopes]
    writer.flush()
    return envelopes, sealed


def test_an_erased_record_opened_through_the_batch_stays_erased(store: KeyStore) -> None:
    envelopes, sealed = _forty_sealed(store)
    reader = Sealer(store)
    assert reader.open_many(sealed) == envelopes  # its keys are cached now
    ring = KeyRing(store)
    gone = envelopes[3].payload.memory_id  # type: ignore[union-attr]
    destroy(ring, plan(ring, "t", "memory", gone))
    again = reader.open_many(sealed)
    assert again[3].payload.text == ERASED  # type: ignore[union-attr]
    assert [e for i, e in enumerate(again) if i != 3] == [e for i, e in enumerate(envelopes) if i != 3]
    assert reader.open(sealed[3]).payload.text == ERASED  # type: ignore[union-attr]


def test_an_erasure_during_the_lookup_or_after_it_wins(store: KeyStore) -> None:
    envelopes, sealed = _forty_sealed(store)
    ring = KeyRing(store)
    reader = Sealer(store)
    lookup_many = store.lookup_many

    def erasing(items: list[tuple[str, str]]) -> list[bytes | bool]:
        found = lookup_many(items)  # the keys are read, then an eraser elsewhere destroys one
        destroy(ring, plan(ring, "t", "memory", envelopes[5].payload.memory_id))  # type: ignore[union-attr]
        return found

    store.lookup_many = erasing  # type: ignore[method-assign]
    wanted = [("t", f"m:{e.payload.memory_id}") for e in envelopes]  # type: ignore[union-attr]
    generation, opened = reader.keys.for_opening_many(wanted)
    assert opened == {} and reader.keys.generation != generation
    assert reader.keys.for_opening("t", wanted[5][1]) is None  # nothing it read was cached
    store.lookup_many = lookup_many  # type: ignore[method-assign]
    generation, opened = reader.keys.for_opening_many(wanted)
    assert len(opened) == 40 and opened[wanted[5]] is True
    destroy(ring, plan(ring, "t", "memory", envelopes[6].payload.memory_id))  # type: ignore[union-attr]
    after = [reader._open(e, generation, opened) for e in sealed]  # opened after the batch's lookup
    assert [e.payload.text for e in after[4:8]] == ["text 4", ERASED, ERASED, "text 7"]  # type: ignore[union-attr]
