"""One event of a session erased by puncturing the session's key tree; the rest of the session stays."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest

from codememory.events import Envelope, PromptSubmitted, decode_envelope, encode_envelope, new_envelope
from codememory.events.codec import install_sealer
from codememory.sealing import ERASED, KeyStore, MemoryKeyStore, Sealer, destroy, plan
from codememory.sealing.keys import KeyRing
from codememory.sealing.stored import StoredRecord, decode_stored, record_name
from codememory.sealing.tree import ARITY, DEPTH, LEVELS, Frontier, leaf_index


def test_a_punctured_leaf_cannot_be_derived_and_every_other_leaf_derives_as_before() -> None:
    root = Frontier.fresh(os.urandom(32))
    gone = leaf_index("event-7")
    others = [leaf_index(f"event-{i}") for i in range(200) if i != 7]
    before = {i: root.leaf(i) for i in others}
    cut = root.punctured(gone)
    assert cut is not None and root.leaf(gone) is not None
    assert cut.leaf(gone) is None and cut.punctured(gone) is None
    assert {i: cut.leaf(i) for i in others} == before
    assert len(cut.nodes) == LEVELS * (ARITY - 1)  # the siblings of the path, not the root
    # no stored node is an ancestor of the punctured leaf (nothing derives it)
    bits = DEPTH // LEVELS
    assert all(prefix != gone >> (DEPTH - bits * level) for level, prefix in cut.nodes)
    again = Frontier.decode(cut.encode())
    assert again.nodes == cut.nodes


def test_many_punctures_keep_every_other_leaf() -> None:
    frontier = Frontier.fresh(os.urandom(32))
    leaves = [random.Random(i).getrandbits(DEPTH) for i in range(300)]
    expected = {i: frontier.leaf(i) for i in leaves}
    gone = set(leaves[::3])
    for leaf in gone:
        cut = frontier.punctured(leaf)
        assert cut is not None
        frontier = cut
    assert all(frontier.leaf(i) is None for i in gone)
    assert all(frontier.leaf(i) == expected[i] for i in leaves if i not in gone)


def test_a_damaged_frontier_is_a_value_error() -> None:
    for data in (b"not json", b'[[0, 0, "!!"]]', b'[[41, 0, "' + b"A" * 44 + b'"]]'):
        with pytest.raises(ValueError):
            Frontier.decode(data)


@pytest.fixture
def store() -> Iterator[KeyStore]:
    keys = MemoryKeyStore()
    previous = install_sealer(Sealer(keys))
    yield keys
    install_sealer(previous)


def _prompts(n: int, session: str = "s1") -> list[Envelope]:
    return [
        new_envelope(
            PromptSubmitted(
                session_id=session, agent="claude", user="alice", prompt=f"prompt {i} of {session}"
            ),
            event_id=f"{session}-e{i}",
            tenant="t",
        )
        for i in range(n)
    ]


def _fresh(store: KeyStore, data: bytes) -> Envelope:
    """Opened by a process that starts now (nothing cached)."""
    installed = install_sealer(None)
    try:
        return Sealer(store).open(decode_envelope(data))
    finally:
        install_sealer(installed)


def test_puncturing_one_event_keeps_the_session_readable_bit_for_bit(store: KeyStore) -> None:
    envelopes = _prompts(6)
    data = [encode_envelope(e) for e in envelopes]
    reader = Sealer(store)  # another process, its keys cached before the erasure
    assert reader.open(decode_envelope(data[0])) == envelopes[0]
    erase = plan(KeyRing(store), "t", "memory", "s1-e2", session="s1")
    assert erase.punctures == (("s:s1", "s1-e2"),) and erase.keys == ()
    assert destroy(KeyRing(store), erase) == 1
    assert store.destroyed("t", "rec:s:s1") and store.get("t", record_name("s:s1", 1)) is not None
    opened = [decode_envelope(d) for d in data]
    assert [o == e for o, e in zip(opened, envelopes, strict=True)] == [True, True, False, True, True, True]
    assert opened[2].payload.prompt == ERASED  # type: ignore[union-attr]
    assert reader.open(decode_envelope(data[2])).payload.prompt == ERASED  # type: ignore[union-attr]
    later = _prompts(8)[7]  # the session goes on after the erasure
    assert decode_envelope(encode_envelope(later)) == later
    assert destroy(KeyRing(store), erase) == 0  # erased already


def test_erasing_the_session_after_a_puncture_erases_every_event(store: KeyStore) -> None:
    data = [encode_envelope(e) for e in _prompts(3)]
    destroy(KeyRing(store), plan(KeyRing(store), "t", "memory", "s1-e0", session="s1"))
    session = plan(KeyRing(store), "t", "session", "s1")
    assert session.keys == (record_name("s:s1", 1),)
    destroy(KeyRing(store), session)
    assert [decode_envelope(d).payload.prompt for d in data] == [ERASED] * 3  # type: ignore[union-attr]


def test_a_puncture_interrupted_before_destroying_the_old_frontier_is_finished(store: KeyStore) -> None:
    envelopes = _prompts(3)
    data = [encode_envelope(e) for e in envelopes]
    ring = KeyRing(store)
    real_destroy = store.destroy
    store.destroy = lambda tenant, name: False  # type: ignore[method-assign]  # crash before destroying
    ring.puncture("t", "s:s1", "s1-e1")
    store.destroy = real_destroy  # type: ignore[method-assign]
    assert store.get("t", "rec:s:s1") is not None  # the old frontier is still there
    live = ring.live_record("t", "s:s1")
    assert live is not None and live.epoch == 1  # readers take the newer one already
    assert _fresh(store, data[1]).payload.prompt == ERASED  # type: ignore[union-attr]
    assert KeyRing(store).puncture("t", "s:s1", "s1-e2")  # the next erasure destroys what was left
    assert store.destroyed("t", "rec:s:s1") and store.destroyed("t", record_name("s:s1", 1))
    assert decode_envelope(data[0]) == envelopes[0]


def test_two_erasers_puncturing_at_once_both_hold(store: KeyStore) -> None:
    data = [encode_envelope(e) for e in _prompts(3)]
    first, second = KeyRing(store), KeyRing(store)
    stale = second.live_record("t", "s:s1")
    assert first.puncture("t", "s:s1", "s1-e0")
    real_live = second.live_record
    calls = iter([stale])  # the second read the old frontier just before the first wrote its own
    second.live_record = lambda t, r: next(calls, None) or real_live(t, r)  # type: ignore[method-assign]
    assert second.puncture("t", "s:s1", "s1-e1")
    texts = [decode_envelope(d).payload.prompt for d in data]  # type: ignore[union-attr]
    assert texts == [ERASED, ERASED, "prompt 2 of s1"]


def test_session_records_are_trees_and_memory_records_are_not(store: KeyStore) -> None:
    encode_envelope(_prompts(1)[0])
    stored = decode_stored(store.get("t", "rec:s:s1") or b"")
    assert isinstance(stored, StoredRecord) and stored.tree and stored.session == "s1"
