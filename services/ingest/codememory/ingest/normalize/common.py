"""What every agent's normalizer shares: the session context, text hygiene, and the catch-all observation.

Hook payloads are untrusted, unbounded and full of things that must never reach the log: secrets in
commands, ``<private>`` blocks, and the ``<codememory-context>`` codememory itself injected (recording it
would feed memories back into memory). So *every* string that goes into an event passes through
``clean`` (or ``line``/``sanitize``), which strips and redacts via ``codememory.redaction`` and then caps
the length. Readers of the payload (``text_of``, ``dict_of``...) never raise on a surprising shape: agents
change their payloads between versions, and a wrong guess should cost detail, not the event.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

import msgspec

from codememory.clip import clip
from codememory.events import Event, ObservationRecorded, SessionEnded, SessionStarted
from codememory.redaction import clean_text, redact

__all__ = [
    "EXCERPT_CAP",
    "LINE_CAP",
    "Context",
    "clean",
    "dict_of",
    "first_text",
    "line",
    "list_of",
    "observation",
    "sanitize",
    "session_ended",
    "session_started",
    "squash",
    "text_of",
]

EXCERPT_CAP = 2000
"""Longest excerpt, prompt, message or field value kept in an event (characters)."""
LINE_CAP = 300
"""Longest one-line summary."""
_PRE_CAP = 200_000
"""Strings are cut to this before cleaning, so a multi-megabyte tool output costs bounded work."""
_FIELDS_BUDGET = 16_000
_MAX_DEPTH = 4
_MAX_ITEMS = 20
_MAX_KEYS = 40
_INT_RANGE = 2**63
_LIFTED_KEYS = frozenset({"hook_event_name", "session_id", "conversation_id", "cwd", "user_email"})
_DESCRIBE_KEYS = (
    "message",
    "last_assistant_message",
    "prompt_response",
    "text",
    "reason",
    "error",
    "status",
    "title",
    "name",
    "prompt",
    "task_subject",
    "teammate_name",
    "file_path",
    "worktree_path",
    "directory",
    "new_cwd",
    "action",
    "notification_type",
    "source",
    "trigger",
)
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, kw_only=True, slots=True)
class Context:
    """Who and where a hook fired: the common fields of every agent event."""

    hook_event: str
    session_id: str
    agent: str
    cwd: str = ""
    repo: str = ""
    repo_root: str = ""
    branch: str = ""
    user: str = ""
    trimmed: tuple[str, ...] = ()

    def base(self) -> dict[str, str]:
        """The keyword arguments every ``_AgentEvent`` takes."""
        return {
            "session_id": self.session_id,
            "agent": self.agent,
            "cwd": self.cwd,
            "repo": self.repo,
            "branch": self.branch,
            "user": self.user,
        }


def clean(value: object, limit: int = EXCERPT_CAP) -> str:
    """Any value as redacted, private-free text of at most ``limit`` characters (non-strings as JSON)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else _json(value)
    return clip(clean_text(text[:_PRE_CAP]).strip(), limit)


def line(value: object, limit: int = LINE_CAP) -> str:
    """Like ``clean``, but whitespace collapsed to single spaces: for summaries."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else _json(value)
    return clip(" ".join(clean_text(text[:_PRE_CAP]).split()), limit)


def squash(text: str, limit: int = LINE_CAP) -> str:
    """One line composed from parts that are already clean: whitespace collapsed and capped.

    Not cleaned again on purpose: redaction would misread codememory's own template text around the
    parts (``"auth.py: replaced ..."``) as a secret assignment.
    """
    return clip(" ".join(text.split()), limit)


def text_of(mapping: object, key: str) -> str:
    """``mapping[key]`` when it is a string, else ``""`` (raw, not cleaned)."""
    if isinstance(mapping, dict):
        value = mapping.get(key)
        if isinstance(value, str):
            return value
    return ""


def first_text(mapping: object, *keys: str) -> str:
    """The first non-blank string among ``keys`` of ``mapping`` (raw, not cleaned)."""
    for key in keys:
        value = text_of(mapping, key)
        if value.strip():
            return value
    return ""


def dict_of(mapping: object, key: str) -> dict[str, Any]:
    """``mapping[key]`` when it is an object, else an empty dict."""
    if isinstance(mapping, dict):
        value = mapping.get(key)
        if isinstance(value, dict):
            return value
    return {}


def list_of(mapping: object, key: str) -> list[Any]:
    """``mapping[key]`` when it is an array, else an empty list."""
    if isinstance(mapping, dict):
        value = mapping.get(key)
        if isinstance(value, list):
            return value
    return []


def sanitize(value: object) -> Any:
    """A JSON-like value made safe to log: cleaned strings, bounded depth, width and total size."""
    budget = [_FIELDS_BUDGET]
    return redact(_sanitize(value, 0, budget))


def observation(ctx: Context, payload: dict[str, Any], summary: str = "") -> ObservationRecorded:
    """The catch-all event: the hook's name, a short summary, and the payload minus bulk and secrets."""
    fields = {key: value for key, value in payload.items() if key not in _LIFTED_KEYS}
    if ctx.trimmed:
        fields["_trimmed_by_hook_client"] = list(ctx.trimmed)
    clean_fields = sanitize(fields)
    return ObservationRecorded(
        **ctx.base(),
        hook_event=line(ctx.hook_event, 100),
        summary=summary or _describe(ctx.hook_event, payload),
        fields=clean_fields if isinstance(clean_fields, dict) else {},
    )


def _describe(hook_event: str, payload: dict[str, Any]) -> str:
    for key in _DESCRIBE_KEYS:
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return squash(f"{line(hook_event, 100)}: {line(value)}")
    return line(hook_event or "hook event")


def _sanitize(value: object, depth: int, budget: list[int]) -> Any:
    if budget[0] <= 0:
        return "…"
    if value is None or isinstance(value, bool | float):
        return value
    if isinstance(value, int):
        return value if -_INT_RANGE <= value < _INT_RANGE else str(value)
    if isinstance(value, str):
        text = clean(value, min(EXCERPT_CAP, max(budget[0], 1)))
        budget[0] -= len(text)
        return text
    if depth >= _MAX_DEPTH:
        return _sanitize(_json(value), depth, budget)
    if isinstance(value, dict):
        out = {str(k)[:100]: _sanitize(v, depth + 1, budget) for k, v in islice(value.items(), _MAX_KEYS)}
        if len(value) > _MAX_KEYS:
            out["…"] = f"{len(value) - _MAX_KEYS} more keys"
        return out
    if isinstance(value, list | tuple):
        items = [_sanitize(item, depth + 1, budget) for item in value[:_MAX_ITEMS]]
        if len(value) > _MAX_ITEMS:
            items.append(f"… {len(value) - _MAX_ITEMS} more items")
        return items
    return _sanitize(str(value), depth, budget)


def _json(value: object) -> str:
    try:
        return _encoder.encode(value).decode()
    except (TypeError, ValueError, OverflowError):
        return str(value)


def session_started(ctx: Context, source: object, model: object) -> list[Event]:
    """The one way every agent's session start becomes an event."""
    return [SessionStarted(**ctx.base(), source=line(source, 100), model=line(model, 200))]


def session_ended(ctx: Context, reason: object) -> list[Event]:
    return [SessionEnded(**ctx.base(), reason=line(reason, 200))]
