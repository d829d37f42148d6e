"""Redaction of whole JSON-like payloads, the form hook events arrive in.

Why: a hook payload is a tree (``tool_input.command``, ``tool_response.stdout``, edit lists...),
and secrets may sit in any string of it. Besides scanning every string, a value stored under a
secret-named key (``"password": "..."``, ``"Authorization": "..."``) is replaced wholesale,
whatever it looks like, because the key already says what it is.
"""

from __future__ import annotations

from collections.abc import Callable

from codememory.redaction.assignment import is_secret_key
from codememory.redaction.blocks import strip_injected, strip_private
from codememory.redaction.rule import REDACTED_PREFIX, marker
from codememory.redaction.text import redact_text

SECRET_FIELD = marker("secret_field")


def clean_text(text: str) -> str:
    """What ingest stores of a text: no private blocks, no injected context, no secrets."""
    return redact_text(strip_injected(strip_private(text)))


def _hide(value: str) -> str:
    if not value or value.startswith(REDACTED_PREFIX):
        return value
    return SECRET_FIELD


def _secret_value(value: object, scrub: Callable[[str], str]) -> object:
    if isinstance(value, str):
        return _hide(value)
    if isinstance(value, list):
        return [_hide(item) if isinstance(item, str) else _walk(item, scrub) for item in value]
    return _walk(value, scrub)


def _walk(value: object, scrub: Callable[[str], str]) -> object:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        out: dict[object, object] = {}
        for key, item in value.items():
            new_key = scrub(key) if isinstance(key, str) else key
            if isinstance(key, str) and is_secret_key(key):
                out[new_key] = _secret_value(item, scrub)
            else:
                out[new_key] = _walk(item, scrub)
        return out
    if isinstance(value, list):
        return [_walk(item, scrub) for item in value]
    if isinstance(value, tuple):
        return tuple(_walk(item, scrub) for item in value)
    return value


def redact(value: object) -> object:
    """A copy of a JSON-like ``value`` with every secret replaced; non-strings are kept as they are."""
    return _walk(value, redact_text)


def clean(value: object) -> object:
    """``redact`` that also applies ``strip_private`` and ``strip_injected`` to every string."""
    return _walk(value, clean_text)
