"""The forms the key hierarchy keeps in a KeyStore (``keys.py`` says which name holds which), and
the associated data each wrapped key is bound to, so a key moved to another name or tenant fails to
open. Plain data: the helper process that makes keys in batches (``keyworker.py``) writes the same.
"""

from __future__ import annotations

import msgspec

__all__ = [
    "NONCE",
    "Stored",
    "StoredIdKey",
    "StoredKek",
    "StoredRecord",
    "UserPointer",
    "aad",
    "decode_stored",
    "record_aad",
    "record_name",
]

NONCE = 12


class StoredKek(msgspec.Struct, frozen=True, tag="kek"):
    key: str  # base64


class UserPointer(msgspec.Struct, frozen=True, tag="user"):
    kek: str


class StoredIdKey(msgspec.Struct, frozen=True, tag="idkey"):
    key: str  # base64: the tenant's key for ids derived from what a memory says (``ids.py``)


class StoredRecord(msgspec.Struct, frozen=True, tag="record"):
    record: str
    kek: str
    wrapped: str  # base64(nonce + AES-GCM(data key, or the tree's frontier))
    session: str = ""
    tree: bool = False  # a key per event (``tree.py``); False: one data key for the whole record
    epoch: int = 0  # events punctured so far: stored under ``record_name(record, epoch)``
    sources: tuple[str, ...] = ()  # a derived record: the memories its text repeats (erasing one erases it)


Stored = StoredKek | UserPointer | StoredRecord | StoredIdKey
_decoder = msgspec.json.Decoder(Stored)


def decode_stored(value: bytes) -> Stored | None:
    try:
        stored: Stored = _decoder.decode(value)
        return stored
    except msgspec.DecodeError:
        return None


def aad(*parts: str) -> bytes:
    return "\0".join(parts).encode("utf-8", "surrogatepass")


def record_name(record_id: str, epoch: int = 0) -> str:
    """The store name of a record's key (``epoch``: after that many punctures)."""
    return f"rec:{record_id}" if epoch == 0 else f"cut{epoch}:{record_id}"


def record_aad(tenant: str, stored: StoredRecord) -> bytes:
    epoch = (str(stored.epoch),) if stored.epoch else ()
    return aad(tenant, stored.record, *epoch)
