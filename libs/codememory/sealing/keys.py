"""The key hierarchy on top of a KeyStore: a key per tenant and user, a key per record wrapped by it.

Names in the store (per tenant):
  ``user:<user>#<n>``  -> which key encryption key (``kek``) the user's records are wrapped with now;
                          ``n`` counts erasures of the user, so a user erased and seen again gets a new one
  ``kek:<kid>``        -> 32 random bytes (AES-256), destroyed by ``erase --user``
  ``rec:<record>``     -> the record, AES-GCM-wrapped by its user's kek, with the record's session
                          (``erase --session`` finds its records by it). A memory's record (``m:``)
                          wraps one 32-byte data key; an agent session's (``s:``, made since per-event
                          keys) wraps the frontier of a puncturable tree (``tree.py``), a key per event
  ``idkey``            -> the tenant's key for ids made from a memory's text (``ids.py``); never
                          destroyed by an erasure (the ids it made must stay the same)
  ``cut<n>:<record>``  -> a session's frontier after its ``n``-th punctured event (``erase --memory``
                          on one of its events): written before ``n - 1`` is destroyed, so a reader
                          always finds one; session records from before per-event keys have no tree

Destroying ``rec:<record>`` erases one memory or session; puncturing erases one event of a session;
destroying ``kek:<kid>`` makes every record wrapped by it unreadable at once. Unwrapped keys are cached
per process; the cache is dropped when the store's ``generation`` moves (something was destroyed,
perhaps by another process).
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Sequence

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from codememory.sealing.fields import Record
from codememory.sealing.keystore import KeyStore, KeyStoreError
from codememory.sealing.stored import (
    NONCE,
    StoredIdKey,
    StoredKek,
    StoredRecord,
    UserPointer,
    aad,
    decode_stored,
    record_aad,
    record_name,
)
from codememory.sealing.tree import Frontier, leaf_index

__all__ = ["KeyRing", "RecordKey"]


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


class KeyRing:
    """Keys of records for sealing (created when missing) and opening (never created)."""

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

    def for_sealing(self, tenant: str, record: Record) -> RecordKey | None:
        """The record's key, made (under its user's key) when it has none; None when it was erased."""
        cached = self._records.get((tenant, record.record_id))
        if cached is not None or (tenant, record.record_id) in self._records:
            return cached
        if not record.per_event and not record.sources:
            # one data key, never punctured: ``create`` alone says whether it exists, was destroyed
            # or is new (a bulk import makes thousands: the lookups before it were 3 syscalls each)
            key = self._create_record(tenant, record)
            self._records[(tenant, record.record_id)] = key
            return key
        stored = self.live_record(tenant, record.record_id)
        key = self._unwrap(tenant, stored) if stored is not None else None
        if stored is None and not self.store.destroyed(tenant, record_name(record.record_id)):
            key = self._create_record(tenant, record)
        self._records[(tenant, record.record_id)] = key
        return key

    def for_opening(self, tenant: str, record_id: str) -> RecordKey | None:
        key = self._records.get((tenant, record_id))
        if key is None and (tenant, record_id) not in self._records:
            stored = self.live_record(tenant, record_id)
            key = self._unwrap(tenant, stored) if stored is not None else None
            if key is not None:  # a missing key is looked up again: a writer may create it later
                self._records[(tenant, record_id)] = key
        return key

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

    def puncture(self, tenant: str, record_id: str, leaf: str) -> bool:
        """Erase one leaf of a session's tree: its next frontier is written (and made durable), then
        every older one destroyed. False when the record has no tree, or the leaf is gone already."""
        while True:
            stored = self.live_record(tenant, record_id)
            key = self._unwrap(tenant, stored) if stored is not None and stored.tree else None
            cut = key.frontier.punctured(leaf_index(leaf)) if key is not None and key.frontier else None
            kek = self._kek(tenant, stored.kek, create=False) if stored is not None else None
            if stored is None or cut is None or kek is None:
                return False
            nonce = os.urandom(NONCE)
            entry = msgspec.structs.replace(stored, epoch=stored.epoch + 1, wrapped="")
            sealed = nonce + kek.encrypt(nonce, cut.encode(), record_aad(tenant, entry))
            entry = msgspec.structs.replace(entry, wrapped=base64.b64encode(sealed).decode())
            value = msgspec.json.encode(entry)
            created = self.store.create(tenant, record_name(record_id, entry.epoch), value)
            if created is None:
                return False  # the whole record was erased meanwhile
            if created == value:
                break
            # another eraser punctured this frontier first: puncture theirs
        self.store.sync()
        for epoch in range(entry.epoch):
            if not self.store.destroyed(tenant, record_name(record_id, epoch)):
                self.store.destroy(tenant, record_name(record_id, epoch))
        self.refresh()
        return True

    def id_key(self, tenant: str) -> bytes:
        """The tenant's key for ids derived from text (made on first use, the same in every process)."""
        cached = self._id_keys.get(tenant)
        if cached is not None:
            return cached
        fresh = StoredIdKey(key=base64.b64encode(os.urandom(32)).decode())
        stored = decode_stored(self.store.create(tenant, "idkey", msgspec.json.encode(fresh)) or b"")
        if not isinstance(stored, StoredIdKey):
            raise KeyStoreError(f"the key store's id key of tenant {tenant!r} is damaged")
        self.store.sync()  # made here or by another process: durable before an id is made with it
        key = base64.b64decode(stored.key)
        self._id_keys[tenant] = key
        return key

    def user_kek(self, tenant: str, user: str) -> str:
        """The id of the key that wraps ``user``'s new records (made on first use)."""
        cached = self._users.get((tenant, user))
        if cached is not None:
            return cached
        epoch = 0
        while True:
            name = f"user:{user}#{epoch}"
            fresh = msgspec.json.encode(UserPointer(kek=uuid.uuid4().hex))
            value = self.store.create(tenant, name, fresh)
            if value is not None:
                pointer = decode_stored(value)
                assert isinstance(pointer, UserPointer)
                self._users[(tenant, user)] = pointer.kek
                return pointer.kek
            epoch += 1  # erased before: the user starts again with a new key

    def current_user_pointer(self, tenant: str, user: str) -> tuple[str, str] | None:
        """(name, kek id) of the user's live pointer, None when the user has none."""
        epoch = 0
        while self.store.destroyed(tenant, f"user:{user}#{epoch}"):
            epoch += 1
        name = f"user:{user}#{epoch}"
        pointer = decode_stored(self.store.get(tenant, name) or b"")
        return (name, pointer.kek) if isinstance(pointer, UserPointer) else None

    def _kek(self, tenant: str, kid: str, *, create: bool) -> AESGCM | None:
        cached = self._keks.get((tenant, kid))
        if cached is not None:
            return cached
        name = f"kek:{kid}"
        if create:
            fresh = StoredKek(key=base64.b64encode(AESGCM.generate_key(256)).decode())
            value = self.store.create(tenant, name, msgspec.json.encode(fresh))
        else:
            value = self.store.get(tenant, name)
        stored = decode_stored(value or b"")
        kek = AESGCM(base64.b64decode(stored.key)) if isinstance(stored, StoredKek) else None
        if kek is not None:
            self._keks[(tenant, kid)] = kek
        return kek

    def _unwrap(self, tenant: str, stored: StoredRecord) -> RecordKey | None:
        kek = self._kek(tenant, stored.kek, create=False)
        if kek is None:
            return None
        blob = base64.b64decode(stored.wrapped)
        try:
            clear = kek.decrypt(blob[:NONCE], blob[NONCE:], record_aad(tenant, stored))
            return RecordKey(frontier=Frontier.decode(clear)) if stored.tree else RecordKey(AESGCM(clear))
        except (InvalidTag, ValueError):
            return None

    def _new_entry(self, tenant: str, record: Record) -> tuple[bytes, bytes] | None:
        """A fresh key for ``record`` and its stored entry (wrapped by its user's key); None when
        that user's key was erased between reading the pointer and now."""
        kid = ""
        if not record.user_known and record.session:
            inherited = self.live_record(tenant, f"s:{record.session}")
            kid = inherited.kek if inherited is not None else ""
        if not kid:
            kid = self.user_kek(tenant, record.user)
        kek = self._kek(tenant, kid, create=True)
        if kek is None:
            return None
        secret = Frontier.fresh(os.urandom(32)).encode() if record.per_event else AESGCM.generate_key(256)
        nonce = os.urandom(NONCE)
        wrapped = nonce + kek.encrypt(nonce, secret, aad(tenant, record.record_id))
        entry = StoredRecord(
            record=record.record_id,
            kek=kid,
            wrapped=base64.b64encode(wrapped).decode(),
            session=record.session,
            tree=record.per_event,
            sources=record.sources,
        )
        return secret, msgspec.json.encode(entry)

    def _key_of(
        self, tenant: str, record: Record, secret: bytes, ours: bytes, value: bytes | None
    ) -> RecordKey | None:
        """The key ``create`` left: ours (no need to unwrap what we just wrapped), another writer's, or
        none (destroyed)."""
        if value == ours:
            if record.per_event:
                return RecordKey(frontier=Frontier.decode(secret))
            return RecordKey(AESGCM(secret))
        stored = decode_stored(value or b"")
        return self._unwrap(tenant, stored) if isinstance(stored, StoredRecord) else None

    def _create_record(self, tenant: str, record: Record) -> RecordKey | None:
        made = self._new_entry(tenant, record)
        if made is None:
            return None
        secret, encoded = made
        name = record_name(record.record_id)
        value = self.store.create(tenant, name, encoded)
        # checked after the record exists: an eraser either sees it (and destroys it with its sources)
        # or had destroyed a source before this check, which then sees that
        if record.sources and self.sources_erased(tenant, record):
            self.store.destroy(tenant, name)
            return None
        return self._key_of(tenant, record, secret, encoded, value)

    def prepare(self, wanted: Sequence[tuple[str, Record]]) -> None:
        """Make the keys of many memories at once (a bulk import): those ``for_sealing`` would make one
        by one (one data key, no sources) are created in one ``create_many`` and cached."""
        fresh: dict[tuple[str, str], tuple[Record, bytes, bytes]] = {}
        for tenant, record in wanted:
            at = (tenant, record.record_id)
            if record.per_event or record.sources or at in self._records or at in fresh:
                continue
            made = self._new_entry(tenant, record)
            if made is not None:
                fresh[at] = (record, *made)
        if not fresh:
            return
        items = [(tenant, record_name(rid), encoded) for (tenant, rid), (_, _, encoded) in fresh.items()]
        values = self.store.create_many(items)
        for ((tenant, rid), (record, secret, encoded)), value in zip(fresh.items(), values, strict=True):
            self._records[(tenant, rid)] = self._key_of(tenant, record, secret, encoded, value)

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
