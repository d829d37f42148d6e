"""A batch of keys made by the helper process: what the store holds is what ``create`` would have left."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from codememory.events import MemoryScope, MemoryStored, decode_envelope, new_envelope
from codememory.events.codec import encode_envelopes, install_sealer
from codememory.sealing import ERASED, FileKeyStore, Sealer, destroy, filekeys, plan
from codememory.sealing.keyworker import KeyWorker, KeyWorkerError


def test_the_helper_creates_keeps_what_exists_and_refuses_what_was_destroyed(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys")
    try:
        store.create("t", "k0", b"first")
        store.destroy("t", "k1")
        items = [("t", f"k{i}", f"v{i}".encode()) for i in range(filekeys.WORKER_FROM)]
        values = store.create_many(items)
        assert store._worker is not None and store._worker._process is not None  # the helper did it
        assert values[:3] == [b"first", None, b"v2"] and values[-1] == f"v{len(items) - 1}".encode()
        again = FileKeyStore(tmp_path / "keys", worker=False)  # another process reads what it wrote
        assert [again.get("t", f"k{i}") for i in (0, 1, 2)] == [b"first", None, b"v2"]
        assert not any(p.name.endswith(".tmp") for p in (tmp_path / "keys").rglob("*"))
    finally:
        store.close()


def test_a_batch_is_sealed_with_keys_made_at_once_and_each_memory_is_still_erased_alone(
    tmp_path: Path,
) -> None:
    store = FileKeyStore(tmp_path / "keys")
    sealer = Sealer(store)
    previous = install_sealer(sealer)
    try:
        envelopes = [
            new_envelope(
                MemoryStored(memory_id=str(uuid.uuid4()), text=f"secret {i}", scope=MemoryScope(user="u")),
                event_id=str(uuid.uuid4()),
                tenant="t",
            )
            for i in range(100)
        ]
        data = encode_envelopes(envelopes)
        assert all(b"secret" not in d for d in data)
        assert store._worker is not None and store._worker._process is not None
        gone = envelopes[7].payload.memory_id  # type: ignore[union-attr]
        destroy(sealer.keys, plan(sealer.keys, "t", "memory", gone))
        install_sealer(Sealer(FileKeyStore(tmp_path / "keys", worker=False)))  # a reader elsewhere
        opened = [decode_envelope(d) for d in data]
        assert opened[7].payload.text == ERASED  # type: ignore[union-attr]
        assert [o for i, o in enumerate(opened) if i != 7] == [e for i, e in enumerate(envelopes) if i != 7]
    finally:
        install_sealer(previous)
        store.close()


def test_when_the_helper_fails_the_batch_is_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def gone(self: KeyWorker, items: object) -> list[bytes | None]:
        raise KeyWorkerError("the key helper is gone")

    monkeypatch.setattr(KeyWorker, "create_many", gone)
    store = FileKeyStore(tmp_path / "keys")
    items = [("t", f"k{i}", b"v") for i in range(filekeys.WORKER_FROM)]
    assert store.create_many(items) == [b"v"] * len(items)
    assert store.get("t", "k5") == b"v"


def test_a_helper_that_dies_is_started_again(tmp_path: Path) -> None:
    worker = KeyWorker(tmp_path / "keys")
    try:
        assert worker.create_many([("t", "a", b"1")]) == [b"1"]
        assert worker._process is not None
        worker._process.kill()
        worker._process.wait()
        assert worker.create_many([("t", "b", b"2")]) == [b"2"]  # poll() saw it dead: a new helper
    finally:
        worker.close()


def test_the_helper_looks_up_a_batch_as_this_process_would(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys")
    try:
        store.create("t", "k0", b"first")
        store.create("t", "k1", b"second")
        store.destroy("t", "k1")
        names = [("t", f"k{i}") for i in range(filekeys.WORKER_FROM)] + [("u", "k0")]
        found = store.lookup_many(names)
        assert store._worker is not None and store._worker._process is not None  # the helper did it
        assert found[:3] == [b"first", True, False] and found[-1] is False
        here = FileKeyStore(tmp_path / "keys", worker=False)
        assert found == here.lookup_many(names)
        assert store.create_many([("t", f"n{i}", b"v") for i in range(filekeys.WORKER_FROM)])[0] == b"v"
        assert store.lookup_many(names) == found  # one helper answers both kinds of request
    finally:
        store.close()


def test_a_lookup_the_helper_fails_is_made_here(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys")
    try:
        store.create("t", "k0", b"first")
        assert store._worker is not None

        def broken(items: object) -> list[bytes | bool]:
            raise KeyWorkerError("gone")

        store._worker.lookup_many = broken  # type: ignore[method-assign]
        names = [("t", f"k{i}") for i in range(filekeys.WORKER_FROM)]
        assert store.lookup_many(names) == [b"first"] + [False] * (len(names) - 1)
    finally:
        store.close()
