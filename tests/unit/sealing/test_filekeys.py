"""The file store beyond the KeyStore contract: private and nameless on disk, a destroyed value
overwritten, fsyncs and syncfs batched at ``sync``, and the generation read at most every
``recheck_s`` (the contract itself is tested against every store in test_keystore_contract.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from codememory.sealing import FileKeyStore, KeyStoreError


def test_file_store_is_private_and_names_nothing(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys")
    store.create("tenant-name", "user:alice@example.com#0", b"secret-value")
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
    files = [p for p in (tmp_path / "keys").rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    assert not any("alice" in str(p) or "tenant-name" in str(p) for p in files)


def test_file_store_overwrites_a_destroyed_value(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys")
    store.create("t", "a", b"secret-value")
    store.destroy("t", "a")
    assert not any(b"secret-value" in p.read_bytes() for p in (tmp_path / "keys").rglob("*") if p.is_file())


def test_file_store_that_cannot_be_made_is_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(KeyStoreError):
        FileKeyStore(tmp_path / "file" / "keys")


def test_file_store_fsyncs_a_batch_of_keys_at_sync_not_at_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from codememory.sealing import durable

    monkeypatch.setattr(durable, "_syncfs", None)  # where there is no syncfs: an fsync per key
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    store = FileKeyStore(tmp_path / "keys")
    for i in range(20):
        store.create("t", f"k{i}", b"v")
    assert synced == []  # nothing fsynced one key at a time
    store.destroy("t", "k3")  # destroyed before the sync: nothing to keep, and no error
    synced.clear()
    store.sync()
    assert len(synced) >= 19 + 2  # the 19 keys left, then the tenant directory and the root
    synced.clear()
    store.sync()
    assert synced == []  # each once
    assert [store.get("t", f"k{i}") for i in (0, 3, 19)] == [b"v", None, b"v"]


def test_a_batch_of_keys_is_made_durable_by_one_syncfs_and_a_few_by_fsyncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from codememory.sealing import durable, filekeys

    if durable._syncfs is None:
        pytest.skip("no syncfs on this platform: the fsync path is tested above")
    calls: list[str] = []
    real_syncfs, real_fsync = durable._syncfs, os.fsync
    monkeypatch.setattr(durable, "_syncfs", lambda fd: (calls.append("syncfs"), real_syncfs(fd))[1])
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    store = FileKeyStore(tmp_path / "keys")
    for i in range(filekeys.SYNCFS_FROM):
        store.create("t", f"k{i}", b"v")
    store.sync()
    assert calls == ["syncfs"]  # the keys and their directories, one call
    calls.clear()
    store.sync()
    assert calls == []  # nothing left
    store.create("t", "one more", b"v")
    store.sync()
    assert calls == ["fsync", "fsync"]  # a lone key: its file and its directory
    monkeypatch.setattr(durable, "_syncfs", lambda fd: -1)  # syncfs failed: fsync each instead
    calls.clear()
    for i in range(filekeys.SYNCFS_FROM):
        store.create("t", f"again{i}", b"v")
    store.sync()
    assert calls.count("fsync") == filekeys.SYNCFS_FROM + 1


def test_file_store_sees_its_own_destroy_at_once_and_another_process_within_recheck(tmp_path: Path) -> None:
    mine = FileKeyStore(tmp_path / "keys", recheck_s=3600.0)
    other = FileKeyStore(tmp_path / "keys", recheck_s=3600.0)
    fresh = FileKeyStore(tmp_path / "keys", recheck_s=0.0)
    mine.create("t", "a", b"one")
    before = mine.generation()
    assert other.generation() == before and fresh.generation() == before
    mine.destroy("t", "a")
    assert mine.generation() != before  # a destroy through this object: at once
    assert fresh.generation() != before  # another store that rechecks every time
    assert other.generation() == before  # another store within its recheck interval: not yet
