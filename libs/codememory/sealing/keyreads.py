"""The reading half of the key ring: ``KeyReads`` finds, unwraps and caches the keys already in the
store and never creates one (``keys.py``, which makes keys and punctures them, builds on it).

Opening a sealed field, asking whether a record was erased and planning an erasure only read; they
share the cache of unwrapped keys, which is dropped when the store's ``generation`` moves (something
was destroyed, perhaps by another process). The names it reads are described in ``keys.py``.

``for_opening_many`` finds the keys of a whole batch of records (a replay opens thousands at a time)
with one ``KeyStore.lookup_many`` instead of a few file lookups per record on the caller's thread; it
walks each record's epochs as ``live_record`` does, and what it cannot settle (a record whose key does
not unwrap) it leaves to ``for_opening`` and ``erased``, one by one.
"""

from __future__ import annotations

import base64
from collections.abc import Collection

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from codememory.sealing.fields import Record
from codememory.sealing.keystore import KeyStore
from codememory.sealing.stored import (
    NONCE,
    StoredKek,
    StoredRecord,
    UserPointer,
    decode_stored,
    record_aad,
    record_name,
)
from codememory.sealing.tree import Frontier, leaf_index

__all__ = ["KeyReads", "Opened", "RecordKey"]


class RecordKey:
    """What seals and opens a record's fields: one data key, or a key per leaf of the record's tree."""

    def __init__(self, direct: AESGCM | None = None, frontier: Frontier | None = None) -> None:
        self._direct = direct
        self.frontier = frontier

    def key(self, leaf: str) -> AESGCM | None:
        """The key of the event (or memory) named ``leaf``; None when that leaf was punctured."""
        if self._direct is not None:
            return self._direct
        assert self.frontier is not None
        raw = self.frontier.leaf(leaf_index(leaf))
        return None if raw is None else AESGCM(raw)


Opened = dict[tuple[str, str], "RecordKey | bool"]  # (tenant, record) -> its key, else whether erased


def _walked(seen: dict[int, bytes | bool]) -> StoredRecord | bool | None:
    """``live_record``'s walk over the epochs looked up so far (``lookup_many`` answers by epoch): the
    stored record, else whether its first name was destroyed; None when a later epoch is needed."""
    epoch = 0
    while seen.get(epoch) is True:  # destroyed: a puncture moved on, or the record was erased
        epoch += 1
    value = seen.get(epoch)
    if value is None:
        return None
    while isinstance(value, bytes):  # a puncture that has not destroyed the frontier before it (yet)
        newer = seen.get(epoch + 1)
        if newer is None:
            return None
        if not isinstance(newer, bytes):
            break
        value, epoch = newer, epoch + 1
    stored = decode_stored(value) if isinstance(value, bytes) else None
    return stored if isinstance(stored, StoredRecord) else seen[0] is True


class KeyReads:
    """Keys of records as the store holds them: looked up, unwrapped and cached, never created."""

    def __init__(self, store: KeyStore) -> None:
        self.store = store
        self._generation = store.generation()
        self._keks: dict[tuple[str, str], AESGCM | None] = {}
        self._users: dict[tuple[str, str], str] = {}
        self._records: dict[tuple[str, str], RecordKey | None] = {}
        self._id_keys: dict[str, bytes] = {}  # never destroyed: not dropped on refresh

    def refresh(self) -> None:
        """Drop cached keys when anything was destroyed since they were read."""
        generation = self.store.generation()
        if generation != self._generation:
            self._keks.clear()
            self._users.clear()
            self._records.clear()
            self._generation = generation

    def for_opening(self, tenant: str, record_id: str) -> RecordKey | None:
        key = self._records.get((tenant, record_id))
        if key is None and (tenant, record_id) not in self._records:
            stored = self.live_record(tenant, record_id)
            key = self._unwrap(tenant, stored) if stored is not None else None
            if key is not None:  # a missing key is looked up again: a writer may create it later
                self._records[(tenant, record_id)] = key
        return key

    @property
    def generation(self) -> int:
        """The store's generation the cached keys were read at (``refresh`` moves it)."""
        return self._generation

    def for_opening_many(self, wanted: Collection[tuple[str, str]]) -> tuple[int, Opened]:
        """``for_opening`` of many (tenant, record) at once, with whether each key-less one was erased
        (``erased``); a record left out is for those two to settle one by one (its key is cached as
        None, or does not unwrap). Returned with the ``generation`` it holds at: once that moves
        (something was destroyed) none of it may be used. When it moved during the lookups, nothing
        is returned, and nothing is cached."""
        self.refresh()
        generation = self._generation
        opened: Opened = {}
        missing: list[tuple[str, str]] = []
        for at in wanted:
            cached = self._records.get(at)
            if cached is not None:
                opened[at] = cached
            elif at not in self._records:
                missing.append(at)
        found: dict[tuple[str, str], RecordKey] = {}
        for at, stored in self._live_records(missing).items():
            if isinstance(stored, bool):
                opened[at] = stored
            elif (key := self._unwrap(at[0], stored)) is not None:
                opened[at] = found[at] = key
        self.refresh()
        if self._generation != generation:  # something was destroyed meanwhile: trust none of it
            return generation, {}
        self._records.update(found)
        return generation, opened

    def _live_records(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], StoredRecord | bool]:
        """``live_record`` of each, by one ``lookup_many`` per two epochs walked (one in all, unless a
        record was punctured twice): its stored key, else whether its first name was destroyed."""
        seen: dict[tuple[str, str], dict[int, bytes | bool]] = {at: {} for at in wanted}
        walked: dict[tuple[str, str], StoredRecord | bool] = {}
        epoch = 0
        pending = list(seen)
        while pending:
            names = [(t, record_name(r, e)) for t, r in pending for e in (epoch, epoch + 1)]
            values = self.store.lookup_many(names)
            unsettled = []
            for i, at in enumerate(pending):
                seen[at][epoch], seen[at][epoch + 1] = values[2 * i], values[2 * i + 1]
                outcome = _walked(seen[at])
                if outcome is None:
                    unsettled.append(at)
                else:
                    walked[at] = outcome
            pending, epoch = unsettled, epoch + 2
        return walked

    def erased(self, tenant: str, record_id: str) -> bool:
        """The record's key, or the key of its user, was destroyed."""
        stored = self.live_record(tenant, record_id)
        if stored is None:
            return self.store.destroyed(tenant, record_name(record_id))
        return self.store.destroyed(tenant, f"kek:{stored.kek}")

    def live_record(self, tenant: str, record_id: str) -> StoredRecord | None:
        """The record's stored key as it is now (its newest frontier), None when it has none."""
        epoch = 0
        while self.store.destroyed(tenant, record_name(record_id, epoch)):
            epoch += 1
        value = self.store.get(tenant, record_name(record_id, epoch))
        while value is not None:  # a puncture that has not destroyed the frontier before it (yet)
            newer = self.store.get(tenant, record_name(record_id, epoch + 1))
            if newer is None:
                break
            value, epoch = newer, epoch + 1
        stored = decode_stored(value or b"")
        return stored if isinstance(stored, StoredRecord) else None

    def current_user_pointer(self, tenant: str, user: str) -> tuple[str, str] | None:
        """(name, kek id) of the user's live pointer, None when the user has none."""
        epoch = 0
        while self.store.destroyed(tenant, f"user:{user}#{epoch}"):
            epoch += 1
        name = f"user:{user}#{epoch}"
        pointer = decode_stored(self.store.get(tenant, name) or b"")
        return (name, pointer.kek) if isinstance(pointer, UserPointer) else None

    def _kek(self, tenant: str, kid: str) -> AESGCM | None:
        """The key encryption key ``kid`` as stored; None when it was destroyed or never made."""
        cached = self._keks.get((tenant, kid))
        if cached is not None:
            return cached
        return self._kek_of(tenant, kid, self.store.get(tenant, f"kek:{kid}"))

    def _kek_of(self, tenant: str, kid: str, value: bytes | None) -> AESGCM | None:
        """The key encryption key in a stored ``value`` (cached); None when there is none."""
        stored = decode_stored(value or b"")
        kek = AESGCM(base64.b64decode(stored.key)) if isinstance(stored, StoredKek) else None
        if kek is not None:
            self._keks[(tenant, kid)] = kek
        return kek

    def _unwrap(self, tenant: str, stored: StoredRecord) -> RecordKey | None:
        kek = self._kek(tenant, stored.kek)
        if kek is None:
            return None
        blob = base64.b64decode(stored.wrapped)
        try:
            clear = kek.decrypt(blob[:NONCE], blob[NONCE:], record_aad(tenant, stored))
            return RecordKey(frontier=Frontier.decode(clear)) if stored.tree else RecordKey(AESGCM(clear))
        except (InvalidTag, ValueError):
            return None

    def sources_erased(self, tenant: str, record: Record) -> bool:
        """Whether a memory ``record``'s text repeats was erased: its own record's key, its leaf of the
        session's tree or the whole session (a derived record names its session)."""
        if any(self.store.destroyed(tenant, record_name(f"m:{source}")) for source in record.sources):
            return True
        if not record.session:
            return False
        session = self.live_record(tenant, f"s:{record.session}")
        if session is None:
            return self.store.destroyed(tenant, record_name(f"s:{record.session}"))
        key = self._unwrap(tenant, session)
        if key is None:  # its user's key is gone (or the entry is damaged: keep nothing)
            return True
        return key.frontier is not None and any(
            key.frontier.leaf(leaf_index(source)) is None for source in record.sources
        )
