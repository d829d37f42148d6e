"""The hook message the hook client publishes on HOOKS: parsed and checked once, then turned into envelopes.

The hook client wraps whatever an agent wrote to its hook's stdin in a small envelope of its own (who,
where, when, and a dedupe key). Everything downstream trusts these envelope fields, so they are checked
strictly here and a bad one raises ``MalformedHookMessageError`` (a DLQ case). The agent's own payload is
*not* validated: agents change their shapes often, and normalization reads it defensively instead.

Envelope ids are derived from the hook client's ``dedupe_key`` and the event's position, so a redelivered
message yields identical envelopes and the log stores them once. The envelope's time is ``received_at``
(agents send no reliable clock), its causation the dedupe key, its correlation the agent session.

The tenant is the one the message's subject names (``cm.hooks.<tenant>...``), which the bus lets a hook
publish only with that tenant's credential: ``to_envelopes`` is given it as ``bound_tenant``, and a
message whose own ``tenant`` field says otherwise is a forgery (``ForeignTenantError``, dead-lettered),
never stored under either tenant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import msgspec

from codememory import subjects
from codememory.clip import clip
from codememory.events import Envelope, deterministic_id, new_envelope
from codememory.ingest.errors import ForeignTenantError, MalformedHookMessageError
from codememory.ingest.normalize import normalize_message

__all__ = ["MESSAGE_VERSION", "HookMessage", "parse_hook_message", "to_envelopes"]

MESSAGE_VERSION = 1
"""The only hook message version this ingest understands."""

_decoder = msgspec.json.Decoder()


@dataclass(frozen=True, kw_only=True, slots=True)
class HookMessage:
    """One hook firing, as published by the hook client."""

    agent: str
    event: str
    tenant: str
    received_at: datetime
    dedupe_key: str
    payload: dict[str, Any]
    repo: str = ""
    repo_root: str = ""
    branch: str = ""
    user: str = ""
    trimmed: tuple[str, ...] = ()
    v: int = MESSAGE_VERSION

    @property
    def hook_event(self) -> str:
        """The agent's event name: the message's ``event``, else the payload's ``hook_event_name``."""
        if self.event:
            return self.event
        name = self.payload.get("hook_event_name")
        return name if isinstance(name, str) else ""

    @property
    def is_raw(self) -> bool:
        """True when the hook client could not parse the agent's stdin as a JSON object."""
        return "_raw" in self.payload and len(self.payload) == 1


def to_envelopes(data: bytes, *, bound_tenant: str | None = None) -> list[Envelope]:
    """The envelopes for one hook message (possibly none); raises ``MalformedHookMessageError`` if bad.

    ``bound_tenant``: the tenant token of the subject it arrived on; the envelopes are that tenant's.
    """
    message = parse_hook_message(data)
    if bound_tenant is not None:
        if subjects.token(message.tenant) != bound_tenant:
            raise ForeignTenantError(
                f"hook message names tenant {_short(message.tenant)}, its subject {bound_tenant!r}"
            )
        message = replace(message, tenant=bound_tenant)
    try:
        events = normalize_message(message)
    except RecursionError as exc:  # a payload deep enough to exhaust the stack while being read
        raise MalformedHookMessageError("hook payload is nested too deep to normalise") from exc
    return [
        new_envelope(
            event,
            event_id=deterministic_id(message.dedupe_key, str(index)),
            tenant=message.tenant,
            occurred_at=message.received_at,
            causation_id=message.dedupe_key,
            correlation_id=getattr(event, "session_id", ""),
        )
        for index, event in enumerate(events)
    ]


def parse_hook_message(data: bytes) -> HookMessage:
    """Parse and check a hook message, or raise ``MalformedHookMessageError`` saying what is wrong."""
    try:
        raw = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedHookMessageError(f"hook message is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise MalformedHookMessageError("hook message is nested too deep to read") from exc
    if not isinstance(raw, dict):
        raise MalformedHookMessageError(f"hook message is a JSON {type(raw).__name__}, not an object")
    version = raw.get("v", MESSAGE_VERSION)
    if type(version) is not int or version != MESSAGE_VERSION:
        raise MalformedHookMessageError(f"unsupported hook message version {_short(version)}")
    payload = raw.get("payload")
    if not isinstance(payload, dict):
        raise MalformedHookMessageError("hook message field 'payload' is missing or not an object")
    return HookMessage(
        agent=_required_str(raw, "agent").strip().lower(),
        event=_optional_str(raw, "event"),
        tenant=_required_str(raw, "tenant"),
        received_at=_timestamp(raw),
        dedupe_key=_required_str(raw, "dedupe_key"),
        payload=payload,
        repo=_optional_str(raw, "repo"),
        repo_root=_optional_str(raw, "repo_root"),
        branch=_optional_str(raw, "branch"),
        user=_optional_str(raw, "user"),
        trimmed=_trimmed(raw),
        v=version,
    )


def _required_str(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise MalformedHookMessageError(f"hook message field {key!r} is missing or not a non-empty string")
    return value


def _optional_str(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedHookMessageError(
            f"hook message field {key!r} is a {type(value).__name__}, not a string"
        )
    return value


def _timestamp(raw: dict[str, Any]) -> datetime:
    text = _required_str(raw, "received_at")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise MalformedHookMessageError(
            f"hook message field 'received_at' is not ISO 8601: {_short(text)}"
        ) from exc
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _trimmed(raw: dict[str, Any]) -> tuple[str, ...]:
    value = raw.get("trimmed")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise MalformedHookMessageError("hook message field 'trimmed' is not a list of strings")
    return tuple(value)


def _short(value: object) -> str:
    """A repr short enough for a DLQ reason, whatever the sender put there."""
    return clip(repr(value), 80)
