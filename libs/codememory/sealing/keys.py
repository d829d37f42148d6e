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

Reading keys (``keyreads.py``) and making them (here) are two halves of one ring: ``KeyRing`` adds
creation, bulk preparation and puncturing to the reads and the cache it shares with them.
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Sequence

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from codememory.sealing.fields import Record
from codememory.sealing.keyreads import KeyReads, RecordKey
from codememory.sealing.keystore import KeyStoreError
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


class KeyRing(KeyReads):
    """Keys of records for sealing (created when missing) and opening (never created)."""

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

    def puncture(self, tenant: str, record_id: str, leaf: str) -> bool:
        """Erase one leaf of a session's tree: its next frontier is written (and made durable), then
        every older one destroyed. False when the record has no tree, or the leaf is gone already."""
        while True:
            stored = self.live_record(tenant, record_id)
            key = self._unwrap(tenant, stored) if stored is not None and stored.tree else None
            cut = key.frontier.punctured(leaf_index(leaf)) if key is not None and key.frontier else None
            kek = self._kek(tenant, stored.kek) if stored is not None else None
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

    def _made_kek(self, tenant: str, kid: str) -> AESGCM | None:
        """The key encryption key ``kid``, made when missing; None when it was destroyed."""
        cached = self._keks.get((tenant, kid))
        if cached is not None:
            return cached
        fresh = msgspec.json.encode(StoredKek(key=base64.b64encode(AESGCM.generate_key(256)).decode()))
        return self._kek_of(tenant, kid, self.store.create(tenant, f"kek:{kid}", fresh))

    def _new_entry(self, tenant: str, record: Record) -> tuple[bytes, bytes] | None:
        """A fresh key for ``record`` and its stored entry (wrapped by its user's key); None when
        that user's key was erased between reading the pointer and now."""
        kid = ""
        if not record.user_known and record.session:
            inherited = self.live_record(tenant, f"s:{record.session}")
            kid = inherited.kek if inherited is not None else ""
        if not kid:
            kid = self.user_kek(tenant, record.user)
        kek = self._made_kek(tenant, kid)
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
