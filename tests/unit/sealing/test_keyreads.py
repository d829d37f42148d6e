"""The reading half of the key ring: it opens what a ring made (in this process or another), never
creates a key, sees an erasure once the store's generation moves, and finds a user's live pointer."""

from __future__ import annotations

from codememory.sealing import MemoryKeyStore, Record
from codememory.sealing.keyreads import KeyReads
from codememory.sealing.keys import KeyRing
from codememory.sealing.stored import record_name


def test_reads_never_create_a_key() -> None:
    store = MemoryKeyStore()
    reads = KeyReads(store)
    assert reads.for_opening("t", "m:absent") is None
    assert reads.live_record("t", "m:absent") is None and not reads.erased("t", "m:absent")
    assert reads.current_user_pointer("t", "ann") is None
    assert store.values("t") == []


def test_reads_open_what_a_ring_made_and_lose_it_when_its_user_key_is_destroyed() -> None:
    store = MemoryKeyStore()
    made = KeyRing(store).for_sealing("t", Record("m:one", user="ann", session="s1"))
    assert made is not None
    reads = KeyReads(store)  # another process: nothing cached
    opened = reads.for_opening("t", "m:one")
    assert opened is not None and opened.key("m:one") is not None
    assert reads.live_record("t", "m:one") is not None and not reads.erased("t", "m:one")
    pointer = reads.current_user_pointer("t", "ann")
    assert pointer is not None and pointer[0] == "user:ann#0"
    store.destroy("t", f"kek:{pointer[1]}")
    assert reads.erased("t", "m:one")
    assert reads.for_opening("t", "m:one") is opened  # cached until the generation is looked at
    reads.refresh()
    assert reads.for_opening("t", "m:one") is None


def test_a_destroyed_record_reads_as_erased_and_a_derived_one_as_having_lost_its_source() -> None:
    store = MemoryKeyStore()
    ring = KeyRing(store)
    assert ring.for_sealing("t", Record("m:src", user="ann")) is not None
    store.destroy("t", record_name("m:src"))
    reads = KeyReads(store)
    assert reads.erased("t", "m:src") and reads.for_opening("t", "m:src") is None
    assert reads.sources_erased("t", Record("m:insight", sources=("src",)))
    assert not reads.sources_erased("t", Record("m:insight", sources=("other",)))
