"""The KeyStore contract, run against every implementation (the file store and the in-memory one)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codememory.sealing import FileKeyStore, KeyStore, MemoryKeyStore


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[KeyStore]:
    yield MemoryKeyStore() if request.param == "memory" else FileKeyStore(tmp_path / "keys")


def test_create_then_get_and_first_writer_wins(store: KeyStore) -> None:
    assert store.get("t", "a") is None
    assert store.create("t", "a", b"one") == b"one"
    assert store.create("t", "a", b"two") == b"one"
    assert store.get("t", "a") == b"one"


def test_tenants_do_not_share_names(store: KeyStore) -> None:
    store.create("t1", "a", b"one")
    assert store.get("t2", "a") is None
    assert store.values("t2") == [] and store.values("t1") == [b"one"]


def test_destroy_leaves_a_tombstone_and_moves_the_generation(store: KeyStore) -> None:
    store.create("t", "a", b"one")
    before = store.generation()
    assert store.destroy("t", "a") is True
    assert store.get("t", "a") is None and store.destroyed("t", "a")
    assert store.create("t", "a", b"again") is None  # a destroyed name never comes back
    assert store.generation() != before
    assert store.destroy("t", "a") is False and store.values("t") == []


def test_destroying_a_name_never_created_still_blocks_it(store: KeyStore) -> None:
    store.destroy("t", "never")
    assert store.create("t", "never", b"x") is None


def test_racing_creators_agree_on_one_value(store: KeyStore) -> None:
    results: list[bytes | None] = []

    def create(value: bytes) -> None:
        results.append(store.create("t", "raced", value))

    threads = [threading.Thread(target=create, args=(bytes([i]) * 32,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(results)) == 1 and results[0] == store.get("t", "raced")


def test_lookup_many_tells_values_tombstones_and_names_never_made_apart_in_order(store: KeyStore) -> None:
    store.create("t", "live", b"value")
    store.create("t", "gone", b"old")
    store.destroy("t", "gone")
    store.destroy("t", "never-made")
    store.create("t2", "other", b"theirs")
    names = [
        ("t", "never"),
        ("t", "live"),
        ("t", "gone"),
        ("t", "never-made"),
        ("t2", "live"),
        ("t2", "other"),
    ]
    assert store.lookup_many(names) == [False, b"value", True, True, False, b"theirs"]
    assert store.lookup_many([]) == []
    assert store.lookup_many(names) == [  # what ``get`` and ``destroyed`` say, one by one
        True if store.destroyed(t, n) else store.get(t, n) or False for t, n in names
    ]
