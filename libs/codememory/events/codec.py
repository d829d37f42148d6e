"""Encoding and decoding of envelopes, with the upcasting of older schema versions.

One encoder and one decoder are built once. A payload that is not JSON, has an unknown event type, or
comes from a future schema version raises a typed error: consumers send it to the DLQ and go on.

This is also where LOG is sealed: a process installs an ``EnvelopeSealer`` once at start
(``codememory.sealing.install_sealing``), and then every append seals personal fields and every read
opens them, so consumers see clear text (or ``[erased]``) without knowing. With none installed
(libraries, unit tests) envelopes are written and read as they are. ``decode_envelopes`` decodes a batch
read from LOG and opens it at once (the sealer finds all its keys in one lookup).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec

from codememory.events.envelope import SCHEMA_VERSION, Envelope


class EventDecodeError(ValueError):
    """The bytes are not a valid envelope of a known event."""


class UnknownSchemaVersionError(EventDecodeError):
    """The envelope was written by a newer codememory than this one."""


class EnvelopeSealer(Protocol):
    def prepare(self, envelopes: Sequence[Envelope]) -> None: ...

    def seal(self, envelope: Envelope) -> Envelope: ...

    def flush(self) -> None: ...

    def open(self, envelope: Envelope) -> Envelope: ...

    def open_many(self, envelopes: Sequence[Envelope]) -> list[Envelope]: ...


_sealer: EnvelopeSealer | None = None


def install_sealer(sealer: EnvelopeSealer | None) -> EnvelopeSealer | None:
    """Seal on encode and open on decode from now on, in this process; returns the one it replaces."""
    global _sealer
    previous, _sealer = _sealer, sealer
    return previous


def installed_sealer() -> EnvelopeSealer | None:
    return _sealer


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Envelope)
_raw_decoder = msgspec.json.Decoder(dict[str, Any])

# Upcasters take the raw dict of version N and return version N + 1.
_UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def encode_envelope(envelope: Envelope) -> bytes:
    return encode_envelopes([envelope])[0]


def encode_envelopes(envelopes: Sequence[Envelope]) -> list[bytes]:
    """Encode a batch to append: sealed, with the keys it made durable once for the whole batch."""
    sealer = _sealer
    if sealer is None:
        return [_encoder.encode(envelope) for envelope in envelopes]
    if len(envelopes) > 1:
        sealer.prepare(envelopes)  # their keys made at once
    sealed = [_encoder.encode(sealer.seal(envelope)) for envelope in envelopes]
    sealer.flush()
    return sealed


def decode_envelope(data: bytes) -> Envelope:
    sealer = _sealer
    envelope = _decode(data)
    return envelope if sealer is None else sealer.open(envelope)


def decode_envelopes(datas: Sequence[bytes]) -> list[Envelope | EventDecodeError]:
    """``decode_envelope`` of each, or the error it raises; the batch opened at once."""
    decoded: list[Envelope | EventDecodeError] = []
    for data in datas:
        try:
            decoded.append(_decode(data))
        except EventDecodeError as exc:
            decoded.append(exc)
    sealer = _sealer
    if sealer is None:
        return decoded
    envelopes = [d for d in decoded if isinstance(d, Envelope)]
    opened = iter(sealer.open_many(envelopes))
    return [next(opened) if isinstance(d, Envelope) else d for d in decoded]


def _decode(data: bytes) -> Envelope:
    try:
        envelope = _decoder.decode(data)
    except msgspec.ValidationError as first_error:
        return _decode_other_version(data, first_error)
    except msgspec.DecodeError as exc:
        raise EventDecodeError(f"not a JSON envelope: {exc}") from exc
    if envelope.schema_version > SCHEMA_VERSION:  # it parses, but a newer writer means something else by it
        raise UnknownSchemaVersionError(
            f"schema_version {envelope.schema_version} is newer than {SCHEMA_VERSION}"
        )
    return envelope


def _decode_other_version(data: bytes, first_error: msgspec.ValidationError) -> Envelope:
    try:
        raw = _raw_decoder.decode(data)
    except msgspec.DecodeError as exc:  # pragma: no cover - the first decode already parsed it
        raise EventDecodeError(str(exc)) from exc
    version = raw.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or version == SCHEMA_VERSION:
        raise EventDecodeError(f"invalid envelope: {first_error}") from first_error
    if version > SCHEMA_VERSION:
        raise UnknownSchemaVersionError(f"schema_version {version} is newer than {SCHEMA_VERSION}")
    while version < SCHEMA_VERSION:
        upcast = _UPCASTERS.get(version)
        if upcast is None:
            raise EventDecodeError(f"no upcaster from schema_version {version}")
        raw = upcast(raw)
        version += 1
    raw["schema_version"] = SCHEMA_VERSION
    try:
        return msgspec.convert(raw, Envelope)
    except msgspec.ValidationError as exc:
        raise EventDecodeError(f"invalid envelope after upcasting: {exc}") from exc
