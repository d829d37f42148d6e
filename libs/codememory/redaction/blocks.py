"""Removal of text that must never be remembered: ``<private>`` blocks and codememory's own context.

Why: a user can fence anything in ``<private>...</private>`` to keep it out of memory, and the
context codememory injects into an agent (wrapped in ``<codememory-context>``) comes back in later
prompts and transcripts; storing it again would make memories echo themselves. Blocks nest, the
tags are case-insensitive, and an unclosed opening tag drops everything after it (a truncated
payload must fail towards forgetting, not towards storing).
"""

from __future__ import annotations

import re

INJECTED_OPEN = "<codememory-context>"
INJECTED_CLOSE = "</codememory-context>"

_PRIVATE_TAG = re.compile(r"<(?P<close>/?)[ \t]*private[ \t]*>", re.IGNORECASE)
_INJECTED_TAG = re.compile(r"<(?P<close>/?)[ \t]*codememory-context(?:[ \t][^<>]*)?>", re.IGNORECASE)


def _strip_blocks(text: str, tag: re.Pattern[str]) -> str:
    kept: list[str] = []
    depth = 0
    cursor = 0
    for match in tag.finditer(text):
        closing = bool(match.group("close"))
        if depth == 0:
            kept.append(text[cursor : match.start()])
        if closing:
            depth = max(depth - 1, 0)
        else:
            depth += 1
        cursor = match.end()
    if depth == 0:
        kept.append(text[cursor:])
    return "".join(kept)


def strip_private(text: str) -> str:
    """Drop everything between ``<private>`` and ``</private>``, tags included."""
    if "<" not in text or "private" not in text.lower():
        return text
    return _strip_blocks(text, _PRIVATE_TAG)


def strip_injected(text: str) -> str:
    """Drop every ``<codememory-context>`` block codememory injected, tags included."""
    if "<" not in text or "codememory-context" not in text.lower():
        return text
    return _strip_blocks(text, _INJECTED_TAG)


def is_injected_only(text: str) -> bool:
    """True when nothing but whitespace is left once injected context is removed."""
    return not strip_injected(text).strip()
