"""Sealing and opening envelopes: what the codec calls on every append and every read of LOG.

``seal`` replaces each sealed field (``fields.py``) with a token, ``cmseal1:`` and the base64 of a
nonce and the AES-GCM ciphertext under the record's key (for a session, the key of the event's leaf);
a dict field becomes ``{"cmseal1": token}``; a vector is packed (float32 when that is exact, else
float64) into a token in the string field beside it and left empty. The additional data binds a token
to its tenant, record, event id and field, so a token moved to another event or field does not open.
``open`` turns tokens back into text and vectors. Without the key the text becomes a placeholder and
the envelope keeps its shape: ``[erased]`` when the record, its user or the event's leaf was erased (a
dict field becomes ``{}``, a vector ``()``), ``[sealed]`` when this process has no key for it. Events
with nothing to seal, and events written before sealing was on, pass through unchanged.

``open_many`` opens a batch (a replay's, a follower's) as ``open`` opens each envelope, with the keys of
all its records found at once first (``KeyReads.for_opening_many``: one lookup in the key store for the
batch, not a few file reads per record); an erasure seen while it opens them voids what it found.

Event ids are computed before sealing, from the clear text, so they stay deterministic and JetStream
still deduplicates a retried append (the ciphertext differs per attempt, the ``Nats-Msg-Id`` does not).
"""

from __future__ import annotations

import base64
import binascii
import os
import sys
from array import array
from collections.abc import Sequence
from typing import Any

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from codememory.events import Envelope, Event
from codememory.sealing.fields import SEALED_FIELDS, SEALED_VECTORS, Record, record_of
from codememory.sealing.keyreads import Opened, RecordKey
from codememory.sealing.keys import KeyRing
from codememory.sealing.keystore import KeyStore
from codememory.sealing.stored import NONCE

__all__ = ["ERASED", "PREFIX", "UNAVAILABLE", "Sealer", "is_token"]

PREFIX = "cmseal1:"
ERASED = "[erased]"
UNAVAILABLE = "[sealed]"
_DICT_KEY = "cmseal1"
_json = msgspec.json.Encoder()


def is_token(value: object) -> bool:
    return (isinstance(value, str) and value.startswith(PREFIX)) or (
        isinstance(value, dict) and len(value) == 1 and isinstance(value.get(_DICT_KEY), str)
    )


def _aad(envelope: Envelope, record_id: str, field: str) -> bytes:
    return "\0".join((envelope.tenant, record_id, envelope.event_id, field)).encode("utf-8", "surrogatepass")


def _pack(vector: Sequence[float]) -> bytes:
    packed = array("f", vector)
    if packed.tolist() != list(vector):  # not float32 values: keep every bit
        packed = array("d", vector)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.typecode.encode() + packed.tobytes()


def _unpack(data: bytes) -> tuple[float, ...]:
    typecode = data[:1].decode("ascii", "replace")
    if typecode not in ("f", "d") or (len(data) - 1) % (4 if typecode == "f" else 8):
        raise ValueError("not a packed vector")
    unpacked = array(typecode, data[1:])
    if sys.byteorder == "big":
        unpacked.byteswap()
    return tuple(unpacked.tolist())


class Sealer:
    """An ``EnvelopeSealer`` (``codememory.events.codec``) over a key store."""

    def __init__(self, store: KeyStore) -> None:
        self.keys = KeyRing(store)

    def prepare(self, envelopes: Sequence[Envelope]) -> None:
        """Before sealing a batch: make the keys it needs at once (``KeyRing.prepare``)."""
        self.keys.refresh()
        wanted = [(e.tenant, record) for e in envelopes if (record := _to_seal(e.payload)) is not None]
        self.keys.prepare(wanted)

    def seal(self, envelope: Envelope) -> Envelope:
        payload = envelope.payload
        record = _to_seal(payload)
        if record is None:
            return envelope
        names = SEALED_FIELDS.get(type(payload), ())
        vectors = SEALED_VECTORS.get(type(payload), ())
        self.keys.refresh()
        sealing = self.keys.for_sealing(envelope.tenant, record)
        key = None if sealing is None else sealing.key(record.leaf or envelope.event_id)
        changes: dict[str, Any] = {}
        for name in names:
            value = getattr(payload, name)
            if not value:
                continue
            if key is None:  # erased: what is written for it now is erased too
                changes[name] = {} if isinstance(value, dict) else ERASED
                continue
            clear = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else _json.encode(value)
            token = _token(key, clear, _aad(envelope, record.record_id, name))
            changes[name] = {_DICT_KEY: token} if isinstance(value, dict) else token
        for name, into in vectors:
            vector = getattr(payload, name)
            if vector:
                aad = _aad(envelope, record.record_id, name)
                changes[name], changes[into] = (), "" if key is None else _token(key, _pack(vector), aad)
        return _replaced(envelope, payload, changes)

    def flush(self) -> None:
        """Keys made by ``seal`` so far are durable (the codec calls it once per batch it encodes)."""
        self.keys.store.sync()

    def open(self, envelope: Envelope) -> Envelope:
        return self._open(envelope, 0, {})

    def open_many(self, envelopes: Sequence[Envelope]) -> list[Envelope]:
        """``open`` of each, the keys of their records found at once first."""
        wanted = {(e.tenant, record.record_id) for e in envelopes if (record := _to_open(e.payload))}
        generation, opened = self.keys.for_opening_many(wanted) if len(wanted) > 1 else (0, {})
        return [self._open(envelope, generation, opened) for envelope in envelopes]

    def _open(self, envelope: Envelope, generation: int, opened: Opened) -> Envelope:
        payload = envelope.payload
        tokens, vectors = _sealed_parts(payload)
        if not tokens and not vectors:
            return envelope
        record = record_of(payload)
        if record is None:  # a sealed vector with no record named: nothing can open it
            return _replaced(envelope, payload, {into: "" for _, into in vectors})
        self.keys.refresh()
        found = opened.get((envelope.tenant, record.record_id)) if opened else None
        if found is not None and self.keys.generation != generation:
            found = None  # something was destroyed since the batch's keys were found: look again
        if isinstance(found, RecordKey):
            opening: RecordKey | None = found
            gone = False
        elif isinstance(found, bool):  # no key: the batch's lookup saw whether it was erased
            opening, gone = None, found
        else:
            opening = self.keys.for_opening(envelope.tenant, record.record_id)
            gone = opening is None and self.keys.erased(envelope.tenant, record.record_id)
        key = None if opening is None else opening.key(record.leaf or envelope.event_id)
        erased = (opening is not None and key is None) or gone
        changes: dict[str, Any] = {}
        for name in tokens:
            value = getattr(payload, name)
            is_dict = isinstance(value, dict)
            clear = None if key is None else _open(key, value, _aad(envelope, record.record_id, name))
            if clear is None:
                changes[name] = {} if is_dict else (ERASED if erased else UNAVAILABLE)
            elif is_dict:
                changes[name] = msgspec.json.decode(clear)
            else:
                changes[name] = clear.decode("utf-8", "surrogatepass")
        for name, into in vectors:
            sealed = getattr(payload, into)
            clear = None if key is None else _open(key, sealed, _aad(envelope, record.record_id, name))
            try:
                changes[name], changes[into] = (() if clear is None else _unpack(clear)), ""
            except ValueError:
                changes[name], changes[into] = (), ""
        return _replaced(envelope, payload, changes)


def _to_seal(payload: Event) -> Record | None:
    """The record whose key seals ``payload``, None when it has nothing to seal."""
    record = record_of(payload)
    if record is None:
        return None
    names = SEALED_FIELDS.get(type(payload), ())
    vectors = SEALED_VECTORS.get(type(payload), ())
    if any(getattr(payload, name) for name in names) or any(getattr(payload, v) for v, _ in vectors):
        return record
    return None


def _sealed_parts(payload: Event) -> tuple[list[str], list[tuple[str, str]]]:
    """The sealed fields of ``payload`` (names) and its sealed vectors ((vector, sealed field))."""
    tokens = [name for name in SEALED_FIELDS.get(type(payload), ()) if is_token(getattr(payload, name))]
    vectors = [(n, into) for n, into in SEALED_VECTORS.get(type(payload), ()) if getattr(payload, into)]
    return tokens, vectors


def _to_open(payload: Event) -> Record | None:
    """The record whose key opens ``payload``, None when it holds nothing sealed (or names none)."""
    tokens, vectors = _sealed_parts(payload)
    return record_of(payload) if tokens or vectors else None


def _token(key: AESGCM, clear: bytes, aad: bytes) -> str:
    nonce = os.urandom(NONCE)
    return PREFIX + base64.urlsafe_b64encode(nonce + key.encrypt(nonce, clear, aad)).decode()


def _open(key: AESGCM, value: object, aad: bytes) -> bytes | None:
    token = value[_DICT_KEY] if isinstance(value, dict) else value
    assert isinstance(token, str)
    try:
        blob = base64.urlsafe_b64decode(token[len(PREFIX) :])
        return key.decrypt(blob[:NONCE], blob[NONCE:], aad)
    except (InvalidTag, ValueError, binascii.Error):
        return None  # damaged, or moved from another event: unreadable, never a crash


def _replaced(envelope: Envelope, payload: Event, changes: dict[str, Any]) -> Envelope:
    if not changes:
        return envelope
    return msgspec.structs.replace(envelope, payload=msgspec.structs.replace(payload, **changes))
