"""Turn one hook invocation (agent name + raw stdin bytes) into the HOOKS message.

The message is stamped once, at receipt: ``received_at`` and a random ``dedupe_key`` travel with
the message into the spool, so a re-publish after a failure carries the same
``Nats-Msg-Id`` and JetStream stores it once. Redaction happens here, before the message exists
anywhere else (stream or spool). Repository (its identity, see ``gitrepo``) and branch are read
from ``.git`` directly, without a ``git`` subprocess: a fork+exec would cost more than the whole
hook budget.
"""

from __future__ import annotations

import json
import os
import time

from codememory import subjects
from codememory.hookclient.gitrepo import find_git
from codememory.hookclient.trim import trim_string, trim_value
from codememory.redaction import redact, strip_private
from codememory.subjects import token as subject_token

__all__ = [
    "MAX_MESSAGE_BYTES",
    "HookMessage",
    "build_message",
    "dedupe_key",
    "encode_json",
    "find_git",
    "format_received_at",
    "subject_token",
]

MAX_MESSAGE_BYTES = 900_000  # leaves headroom under NATS' default 1 MB max_payload
_FALLBACK_CAPS = (2048, 256)


class HookMessage:
    """A ready-to-publish hook message: subject, Nats-Msg-Id, encoded body and the body itself."""

    __slots__ = ("body", "data", "msg_id", "subject")

    def __init__(self, subject: str, msg_id: str, body: dict[str, object], data: bytes | None = None) -> None:
        self.subject = subject
        self.msg_id = msg_id
        self.body = body
        self.data = encode_json(body) if data is None else data

    def to_record(self) -> dict[str, object]:
        """The spool line for this message."""
        return {"subject": self.subject, "msg_id": self.msg_id, "message": self.body}

    @classmethod
    def from_record(cls, record: dict[str, object]) -> HookMessage:
        subject, msg_id, body = record["subject"], record["msg_id"], record["message"]
        if not (isinstance(subject, str) and isinstance(msg_id, str) and isinstance(body, dict)):
            raise ValueError("malformed spool record")
        return cls(subject, msg_id, body)


def encode_json(value: object) -> bytes:
    """Compact UTF-8 JSON; falls back to ASCII escapes when a string holds a lone surrogate."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode()


def _finite(text: str) -> float | str:
    value = float(text)
    return value if value - value == 0 else text  # inf - inf is nan: not finite


def format_received_at(now: float) -> str:
    """``2026-11-22T06:00:00.123456Z`` (UTC, microseconds) without importing datetime."""
    seconds = int(now)
    micros = round((now - seconds) * 1_000_000)
    if micros >= 1_000_000:
        seconds, micros = seconds + 1, micros - 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{micros:06d}Z"


def dedupe_key() -> str:
    """32 random hex characters, stamped once per hook invocation.

    The key only has to stay the same for one message (it travels with it into the spool, so a
    re-publish carries the same ``Nats-Msg-Id``); it never recognised two invocations as one (it
    used to be a digest of the raw payload and its microsecond receipt time). Random, it says nothing
    about the payload: a digest of it would confirm a guess of an erased prompt to anyone reading LOG,
    where every event id of the message derives from this key (``docs/security.md``, erasure)."""
    return os.urandom(16).hex()


def _working_dir(payload: dict[str, object]) -> str:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and os.path.isabs(cwd):
        return cwd
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and os.path.isabs(roots[0]):
        return roots[0]
    try:
        return os.getcwd()
    except OSError:
        return ""


def _user() -> str:
    name = os.environ.get("USER") or os.environ.get("LOGNAME") or os.environ.get("USERNAME")
    if name:
        return name
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, OSError):
        return ""


def _scrub(value: object) -> object:
    """Drop ``<private>`` spans from every string, then redact secrets (key-aware, deep)."""
    return redact(_strip_all(value))


def _strip_all(value: object) -> object:
    if isinstance(value, str):
        return strip_private(value)
    if isinstance(value, dict):
        return {key: _strip_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_strip_all(item) for item in value]
    return value


def build_message(
    agent: str, raw: bytes, *, tenant: str, max_field: int, now: float | None = None
) -> HookMessage:
    """The redacted, trimmed message for one hook invocation; always under MAX_MESSAGE_BYTES."""
    received_at = format_received_at(time.time() if now is None else now)
    key = dedupe_key()
    try:
        # NaN, Infinity and 1e999 are kept as their text: re-encoded as numbers they would not be JSON
        parsed = json.loads(raw, parse_constant=str, parse_float=_finite) if raw.strip() else None
    except (ValueError, RecursionError):  # nested thousands deep: kept as raw text below
        parsed = None
    payload: dict[str, object] = {}
    if isinstance(parsed, dict):
        event_name = parsed.get("hook_event_name")
        event = event_name if isinstance(event_name, str) and event_name else "unknown"
        repo, repo_root, branch = find_git(_working_dir(parsed))
        try:
            scrubbed = _scrub(parsed)
            payload = scrubbed if isinstance(scrubbed, dict) else {"_raw": ""}
        except RecursionError:
            parsed = None
    if not isinstance(parsed, dict):
        event = "unknown"
        repo, repo_root, branch = find_git(_working_dir({}))
        payload = {"_raw": _scrub(raw.decode("utf-8", errors="replace"))}
    subject = subjects.hook(tenant, agent, event)
    body: dict[str, object] = {
        "v": 1,
        "agent": agent,
        "event": event,
        "tenant": tenant,
        "received_at": received_at,
        "dedupe_key": key,
        "repo": repo,
        "repo_root": repo_root,
        "branch": branch,
        "user": _user(),
        "trimmed": [],
        "payload": payload,
    }
    for cap in (max_field, *(c for c in _FALLBACK_CAPS if c < max_field)):
        trimmed_payload, paths = trim_value(payload, cap)
        body["trimmed"], body["payload"] = paths, trimmed_payload
        data = encode_json(body)
        if len(data) <= MAX_MESSAGE_BYTES:
            return HookMessage(subject, key, body, data)
    body["payload"], body["trimmed"] = _skeleton(payload)  # last resort: top-level scalars only
    return HookMessage(subject, key, body)


def _skeleton(payload: dict[str, object]) -> tuple[dict[str, object], list[str]]:
    """Top-level scalars only (strings capped at 256); every dropped or cut key is reported."""
    out: dict[str, object] = {"_truncated": True}
    cut: list[str] = []
    for index, (key, value) in enumerate(payload.items()):
        name = trim_string(key, 256)
        if index < 100 and isinstance(value, str):
            out[name] = trim_string(value, 256)
            if len(value) > 256:
                cut.append(name)
        elif index < 100 and (value is None or isinstance(value, bool | int | float)):
            out[name] = value
        elif len(cut) < 100:
            cut.append(name)
    return out, cut
