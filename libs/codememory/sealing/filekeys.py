"""The key store on disk: ``FileKeyStore``, a directory of one file per key (the ``KeyStore`` contract
is in ``keystore.py``; this module is how that contract is kept durable and private on a filesystem).

``FileKeyStore`` is the embedded stack's (a directory under the ``up`` home, 0700, files 0600) and a
deployment's (a volume every service mounts). File names are digests, so neither tenant nor user names
appear on disk; a value is written to a private temporary file and linked into place, so two processes
that create the same name at once agree on one value. ``create`` does not fsync: ``sync`` (once per
batch of appends, before LOG has the events) makes every file created since durable, and their
directories: a batch of 8 or more with one ``syncfs`` of the store's filesystem (Linux; one syscall,
where a thousand fsyncs on threads handed the GIL back and forth in a busy process), fewer with an fsync
each, on a few threads at once (the filesystem commits them together: about 0.1 s for 1,000 keys here,
against 3 s one after another). ``create_many`` (a bulk import's keys, ``KeyRing.prepare``) hands a
batch of 64 or more to a helper process running this same code on the same directory (``keyworker.py``:
inside a busy process every syscall of a key waited to take the GIL back), and so does ``lookup_many`` (a
replay's batch of records to open: two files looked at per name). ``generation`` reads its file
at most every ``recheck_s`` (opening a batch of events asked once per event: a stat each); a destroy
through this object is seen at once, one by another process within ``recheck_s``. A destroyed value is
overwritten before it is unlinked (best effort: a copy-on-write or flash filesystem may keep old
blocks).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import structlog

from codememory.sealing import durable
from codememory.sealing.keystore import KeyStoreError
from codememory.sealing.keyworker import KeyWorker, KeyWorkerError

__all__ = ["FileKeyStore"]

log = structlog.get_logger(__name__)


WORKER_FROM = 64  # keys from which ``create_many`` hands the batch to the helper process
SYNC_THREADS = 8  # concurrent fsyncs of one batch's keys (where there is no ``syncfs``)
SYNCFS_FROM = 8  # keys from which one ``syncfs`` of the store's filesystem replaces their fsyncs


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]


class FileKeyStore:
    """A KeyStore in a directory: ``<root>/<tenant digest>/<name digest>.key`` and ``.erased``."""

    def __init__(self, root: Path, *, recheck_s: float = 0.05, worker: bool = True) -> None:
        self.root = root
        self._worker = KeyWorker(root) if worker else None
        self.recheck_s = recheck_s
        self._destroys = 0  # destroys through this object: a cached generation read before one is stale
        self._generation = (-1.0, 0, -1)  # (read at, value, ``_destroys`` before the read)
        try:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            if root.stat().st_uid == os.getuid():  # a mounted volume's root may belong to another user
                os.chmod(root, 0o700)
        except OSError as exc:
            raise KeyStoreError(f"cannot use key store {root}: {exc.strerror}") from exc
        self._generation_file = root / "generation"
        self._unsynced: set[Path] = set()  # directories with names not yet made durable
        self._unsynced_files: set[str] = set()  # values written but not yet fsynced
        self._tenants: dict[str, str] = {}  # tenant -> its directory (digests are hashed once)
        self._made: set[str] = set()  # tenant directories known to exist
        self._lock = threading.Lock()
        self._syncing = threading.Lock()  # a sync returns once what another sync took is durable too

    def _path(self, tenant: str, name: str, suffix: str) -> Path:
        return Path(self._base(tenant, name)[1] + suffix)

    def _base(self, tenant: str, name: str) -> tuple[str, str]:
        """The tenant's directory and the name's path without its suffix (plain strings: a key is
        looked up several times per sealed memory, and pathlib costs more than the syscalls)."""
        directory = self._tenants.get(tenant)
        if directory is None:
            directory = self._tenants[tenant] = os.path.join(self.root, _digest(tenant))
        return directory, os.path.join(directory, _digest(name))

    def get(self, tenant: str, name: str) -> bytes | None:
        return self._read(self._base(tenant, name)[1] + ".key")

    @staticmethod
    def _read(path: str) -> bytes | None:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise KeyStoreError(f"cannot read a key: {exc.strerror}") from exc

    def create(self, tenant: str, name: str, value: bytes) -> bytes | None:
        directory, base = self._base(tenant, name)
        final = base + ".key"
        if os.path.exists(base + ".erased"):
            return None
        existing = self._read(final)
        if existing is not None:
            return existing
        try:
            temporary = os.path.join(directory, f".{uuid.uuid4().hex}.tmp")
            if directory not in self._made:
                self._make(directory)
            try:
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileNotFoundError:  # the directory went away since we made it
                self._make(directory)
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, value)
            finally:
                os.close(fd)
            try:
                os.link(temporary, final)  # atomic: the first of two racing writers wins
                stored: bytes | None = value
            except FileExistsError:
                stored = None
            finally:
                os.unlink(temporary)
            with self._lock:  # made durable by ``sync``, before LOG gets the events
                self._unsynced_files.add(final)  # (the racing winner's too: it may not have synced yet)
                self._unsynced.add(Path(directory))
        except OSError as exc:
            raise KeyStoreError(f"cannot write a key: {exc.strerror}") from exc
        return stored if stored is not None else self._read(final)

    def _make(self, directory: str) -> None:
        if not os.path.isdir(directory):
            Path(directory).mkdir(mode=0o700, exist_ok=True)
            with self._lock:
                self._unsynced.add(self.root)
        self._made.add(directory)

    def destroy(self, tenant: str, name: str) -> bool:
        path = self._path(tenant, name, ".key")
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            self._path(tenant, name, ".erased").touch(mode=0o600)
            existed = path.is_file()
            if existed:
                with path.open("r+b") as handle:  # overwrite before unlinking (best effort)
                    handle.write(b"\0" * max(path.stat().st_size, 64))
                    handle.flush()
                    os.fsync(handle.fileno())
                path.unlink()
            with self._generation_file.open("ab") as handle:
                handle.write(b".")
            self._destroys += 1
            return existed
        except OSError as exc:
            raise KeyStoreError(f"cannot destroy a key: {exc.strerror}") from exc

    def destroyed(self, tenant: str, name: str) -> bool:
        return os.path.exists(self._base(tenant, name)[1] + ".erased")

    def lookup_many(self, items: Sequence[tuple[str, str]]) -> list[bytes | bool]:
        """``lookup`` of each; a batch of ``WORKER_FROM`` or more by the helper process (its syscalls
        then wait on no GIL of ours), here if the helper is off or failed."""
        if self._worker is not None and len(items) >= WORKER_FROM:
            try:
                return self._worker.lookup_many(items)
            except KeyWorkerError as exc:
                log.warning("key_worker_failed", error=str(exc), keys=len(items))
        return [self.lookup(tenant, name) for tenant, name in items]

    def lookup(self, tenant: str, name: str) -> bytes | bool:
        """The value; True when destroyed, False when never created (``KeyStore.lookup_many``)."""
        base = self._base(tenant, name)[1]
        value = self._read(base + ".key")
        if os.path.exists(base + ".erased"):  # looked at after the read: a destroy begun meanwhile wins
            return True
        return False if value is None else value

    def generation(self) -> int:
        now, destroys = time.monotonic(), self._destroys
        read_at, value, seen = self._generation
        if seen == destroys and now - read_at < self.recheck_s:
            return value
        try:
            value = self._generation_file.stat().st_size
        except FileNotFoundError:
            value = 0
        self._generation = (now, value, destroys)
        return value

    def sync(self) -> None:
        with self._syncing:
            self._sync()

    def create_many(self, items: Sequence[tuple[str, str, bytes]]) -> list[bytes | None]:
        """``create`` each; a batch of ``WORKER_FROM`` or more by the helper process (``keyworker``),
        which makes it durable before it answers; here if the helper is off or failed."""
        if self._worker is not None and len(items) >= WORKER_FROM:
            try:
                return self._worker.create_many(items)
            except KeyWorkerError as exc:
                log.warning("key_worker_failed", error=str(exc), keys=len(items))
        return [self.create(tenant, name, value) for tenant, name, value in items]

    def close(self) -> None:
        """Stop the helper process, if one was started."""
        if self._worker is not None:
            self._worker.close()

    def _sync(self) -> None:
        with self._lock:
            files, self._unsynced_files = self._unsynced_files, set()
            directories = set(self._unsynced)
        if len(files) >= SYNCFS_FROM:
            # a batch of keys: one syscall for all (a thousand fsyncs in threads took the GIL back
            # and forth a thousand times in a busy process); the directories are on the same filesystem
            try:
                synced = durable.sync_filesystem(self.root)
            except OSError:
                synced = False
            if synced:
                with self._lock:
                    self._unsynced -= directories
                return
        try:
            if len(files) > 1:
                with ThreadPoolExecutor(min(SYNC_THREADS, len(files))) as pool:
                    list(pool.map(durable.fsync_file, files))
            else:
                for path in files:
                    durable.fsync_file(path)
        except OSError as exc:
            with self._lock:
                self._unsynced_files |= files
            raise KeyStoreError(f"cannot sync the key store: {exc.strerror}") from exc
        while self._unsynced:
            with self._lock:
                if not self._unsynced:
                    break
                directory = self._unsynced.pop()
            try:
                durable.fsync_dir(directory)
            except OSError as exc:
                with self._lock:
                    self._unsynced.add(directory)
                raise KeyStoreError(f"cannot sync the key store: {exc.strerror}") from exc

    def values(self, tenant: str) -> list[bytes]:
        found = []
        for path in sorted((self.root / _digest(tenant)).glob("*.key")):
            try:
                found.append(path.read_bytes())
            except FileNotFoundError:  # destroyed while we looked
                continue
        return found
