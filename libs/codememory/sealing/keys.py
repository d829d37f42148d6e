"""The key hierarchy on top of a KeyStore: a key per tenant and user, a key per record wrapped by it.

Names in the store (per tenant):
  ``user:<user>#<n>``  -> which key encryption key (``kek``) the user's records are wrapped with now;
                          ``n`` counts erasures of the user, so a user erased and seen again gets a new one
  ``kek:<kid>``        -> 32 random bytes (AES-256), destroyed by ``erase --user``
  ``rec:<record>``     -> the record's 32-byte data key, AES-GCM-wrapped by its user's kek, with the
                          record's session (``erase --session`` finds its records by it)

Destroying ``rec:<record>`` erases one memory or session; destroying ``kek:<kid>`` makes every record
wrapped by it unreadable at once. Unwrapped keys are cached per process; the cache is dropped when the
store's ``generation`` moves (something was destroyed, perhaps by another process).
"""

from __future__ import annotations

import base64
import os
import uuid

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from codememory.sealing.fields import Record
from codememory.sealing.keystore import KeyStore

__all__ = ["KeyRing", "StoredRecord"]

NONCE = 12


class StoredKek(msgspec.Struct, frozen=True, tag="kek"):
    key: str  # base64


class UserPointer(msgspec.Struct, frozen=True, tag="user"):
    kek: str


class StoredRecord(msgspec.Struct, frozen=True, tag="record"):
    record: str
    kek: str
    wrapped: str  # base64(nonce + AES-GCM(data key))
    session: str = ""


Stored = StoredKek | UserPointer | StoredRecord
_decoder = msgspec.json.Decoder(Stored)


def decode_stored(value: bytes) -> Stored | None:
    try:
        stored: Stored = _decoder.decode(value)
        return stored
    except msgspec.DecodeError:
        return None


def _aad(*parts: str) -> bytes:
    return "\0".join(parts).encode("utf-8", "surrogatepass")


class KeyRing:
    """Data keys of records for sealing (created when missing) and opening (never created)."""

    def __init__(self, store: KeyStore) -> None:
        self.store = store
        self._generation = store.generation()
        self._keks: dict[tuple[str, str], AESGCM | None] = {}
        self._users: dict[tuple[str, str], str] = {}
        self._records: dict[tuple[str, str], AESGCM | None] = {}

    def refresh(self) -> None:
        """Drop cached keys when anything was destroyed since they were read."""
        generation = self.store.generation()
        if generation != self._generation:
            self._keks.clear()
            self._users.clear()
            self._records.clear()
            self._generation = generation

    def for_sealing(self, tenant: str, record: Record) -> AESGCM | None:
        """The record's key, made (under its user's key) when it has none; None when it was erased."""
        cached = self._records.get((tenant, record.record_id))
        if cached is not None or (tenant, record.record_id) in self._records:
            return cached
        key = self._open_record(tenant, record.record_id)
        if key is None and not self.store.destroyed(tenant, f"rec:{record.record_id}"):
            key = self._create_record(tenant, record)
        self._records[(tenant, record.record_id)] = key
        return key

    def for_opening(self, tenant: str, record_id: str) -> AESGCM | None:
        key = self._records.get((tenant, record_id))
        if key is None and (tenant, record_id) not in self._records:
            key = self._open_record(tenant, record_id)
            if key is not None:  # a missing key is looked up again: a writer may create it later
                self._records[(tenant, record_id)] = key
        return key

    def erased(self, tenant: str, record_id: str) -> bool:
        """The record's key, or the key of its user, was destroyed."""
        if self.store.destroyed(tenant, f"rec:{record_id}"):
            return True
        stored = self._stored_record(tenant, record_id)
        return stored is not None and self.store.destroyed(tenant, f"kek:{stored.kek}")

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

    def _stored_record(self, tenant: str, record_id: str) -> StoredRecord | None:
        stored = decode_stored(self.store.get(tenant, f"rec:{record_id}") or b"")
        return stored if isinstance(stored, StoredRecord) else None

    def _unwrap(self, tenant: str, stored: StoredRecord) -> AESGCM | None:
        kek = self._kek(tenant, stored.kek, create=False)
        if kek is None:
            return None
        blob = base64.b64decode(stored.wrapped)
        try:
            return AESGCM(kek.decrypt(blob[:NONCE], blob[NONCE:], _aad(tenant, stored.record)))
        except InvalidTag:
            return None

    def _open_record(self, tenant: str, record_id: str) -> AESGCM | None:
        stored = self._stored_record(tenant, record_id)
        return self._unwrap(tenant, stored) if stored is not None else None

    def _create_record(self, tenant: str, record: Record) -> AESGCM | None:
        kid = ""
        if not record.user_known and record.session:
            inherited = self._stored_record(tenant, f"s:{record.session}")
            kid = inherited.kek if inherited is not None else ""
        if not kid:
            kid = self.user_kek(tenant, record.user)
        kek = self._kek(tenant, kid, create=True)
        if kek is None:  # the user was erased between reading the pointer and now
            return None
        nonce = os.urandom(NONCE)
        wrapped = nonce + kek.encrypt(nonce, AESGCM.generate_key(256), _aad(tenant, record.record_id))
        entry = StoredRecord(
            record=record.record_id,
            kek=kid,
            wrapped=base64.b64encode(wrapped).decode(),
            session=record.session,
        )
        value = self.store.create(tenant, f"rec:{record.record_id}", msgspec.json.encode(entry))
        stored = decode_stored(value or b"")
        return self._unwrap(tenant, stored) if isinstance(stored, StoredRecord) else None
