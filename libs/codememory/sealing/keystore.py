"""Where the keys of sealed LOG fields live: the ``KeyStore`` Protocol and an in-memory store.

A key store holds named secrets per tenant and forgets them for good: ``destroy`` removes the value
and leaves a tombstone, so a destroyed name is never created again (``create`` returns None) and a
reader can tell "erased" from "never existed". ``generation`` changes whenever anything is destroyed,
so a process that caches keys knows when to drop its cache. ``lookup_many`` reads many names at once
(a replay opens thousands of records a batch): their values, or which were destroyed, in one call.

This module is the contract every store keeps (the sealer, the key ring and erasure see nothing
else), with ``MemoryKeyStore`` for tests and for a process that must not touch the disk. The store on
disk, ``FileKeyStore``, is in ``filekeys.py``; an external KMS fits the same Protocol.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

__all__ = ["KeyStore", "KeyStoreError", "MemoryKeyStore"]


class KeyStoreError(RuntimeError):
    """The key store cannot be read or written (permissions, a missing volume)."""


class KeyStore(Protocol):
    def get(self, tenant: str, name: str) -> bytes | None:
        """The value, or None when it was never created or has been destroyed."""
        ...

    def create(self, tenant: str, name: str, value: bytes) -> bytes | None:
        """Store ``value`` unless ``name`` exists (then return what is stored); None if destroyed."""
        ...

    def destroy(self, tenant: str, name: str) -> bool:
        """Forget the value and leave a tombstone; True when there was a value."""
        ...

    def destroyed(self, tenant: str, name: str) -> bool: ...

    def lookup_many(self, items: Sequence[tuple[str, str]]) -> list[bytes | bool]:
        """For each (tenant, name), in order: its value; True when it was destroyed (the tombstone wins
        over a value still there); False when it was never created."""
        ...

    def generation(self) -> int:
        """A number that changes whenever a value is destroyed."""
        ...

    def values(self, tenant: str) -> list[bytes]:
        """Every live value of ``tenant`` (erasure scans them for the records of a user or session)."""
        ...

    def create_many(self, items: Sequence[tuple[str, str, bytes]]) -> list[bytes | None]:
        """``create`` for each (tenant, name, value), in order (a bulk import's keys)."""
        ...

    def sync(self) -> None:
        """Make every value created so far durable (once per batch of appends, before LOG has them)."""
        ...


class MemoryKeyStore:
    """A KeyStore in a dict (tests, and a process that must not touch the disk)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], bytes] = {}
        self._tombs: set[tuple[str, str]] = set()
        self._generation = 0
        self._lock = threading.Lock()

    def get(self, tenant: str, name: str) -> bytes | None:
        return self._values.get((tenant, name))

    def create(self, tenant: str, name: str, value: bytes) -> bytes | None:
        with self._lock:
            if (tenant, name) in self._tombs:
                return None
            return self._values.setdefault((tenant, name), value)

    def destroy(self, tenant: str, name: str) -> bool:
        with self._lock:
            self._tombs.add((tenant, name))
            self._generation += 1
            return self._values.pop((tenant, name), None) is not None

    def destroyed(self, tenant: str, name: str) -> bool:
        return (tenant, name) in self._tombs

    def lookup_many(self, items: Sequence[tuple[str, str]]) -> list[bytes | bool]:
        found: list[bytes | bool] = []
        for tenant, name in items:
            value = self._values.get((tenant, name))
            destroyed = (tenant, name) in self._tombs  # read after the value: a destroy meanwhile wins
            found.append(True if destroyed else value if value is not None else False)
        return found

    def generation(self) -> int:
        return self._generation

    def values(self, tenant: str) -> list[bytes]:
        return [value for (owner, _), value in list(self._values.items()) if owner == tenant]

    def create_many(self, items: Sequence[tuple[str, str, bytes]]) -> list[bytes | None]:
        return [self.create(tenant, name, value) for tenant, name, value in items]

    def sync(self) -> None:
        return None
