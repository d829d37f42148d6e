"""One detection rule and the engine that applies an ordered list of them.

Why it is built this way: the hook client runs in a fresh process per hook call with a ~60 ms
budget, so patterns are compiled once at import and every pass over the text must run at C speed.
CPython's ``re`` scans fast only when a pattern starts with a literal, so a rule is either

* a *prefix* rule, whose pattern starts with its vendor prefix (``ghp_``, ``AKIA``...) and runs as
  one ``re.sub`` pass (the word boundary before the prefix is checked per match, because a leading
  look-behind would disable the fast scan); or
* an *anchored* rule, for case-insensitive or name-led secrets (``DB_PASSWORD=...``): ``str.find``
  locates its anchors in the (lower-cased) text and the pattern is only tried there. ``lead``
  optionally moves the start back from an anchor (``api_`` before ``key``).

Only the named group ``secret`` of a match is replaced; the rest (``postgres://user:``,
``API_KEY=``, ``Bearer ``) is kept so the redacted text still reads as what it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

REDACTED_PREFIX = "[REDACTED:"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_LEAD_SPAN = 16

Decide = Callable[["re.Match[str]"], str | None]


def marker(kind: str) -> str:
    """The text that replaces one secret of ``kind``."""
    return f"{REDACTED_PREFIX}{kind}]"


@dataclass(frozen=True, slots=True)
class Rule:
    """A pattern whose group ``secret`` is replaced by ``[REDACTED:<kind>]``.

    With no ``anchors`` the pattern is run over the whole text; when ``bounded``, a match
    preceded by a word character is ignored. With ``anchors`` (lower case when ``folded``) the pattern is tried only
    where an anchor occurs, or where ``lead`` (searched in the 16 characters before the anchor and
    ending at it) says the match starts. ``decide`` sees each match and returns the kind to report,
    or ``None`` to leave it alone.
    """

    kind: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...] = ()
    folded: bool = False
    lead: re.Pattern[str] | None = None
    decide: Decide | None = None
    bounded: bool = False


def _replacement(rule: Rule, match: re.Match[str], found: list[int]) -> str | None:
    secret = match.group("secret")
    if not secret or secret.startswith(REDACTED_PREFIX):
        return None
    kind = rule.kind if rule.decide is None else rule.decide(match)
    if kind is None:
        return None
    found[0] += 1
    whole = match.group(0)
    base = match.start()
    start, end = match.span("secret")
    return whole[: start - base] + marker(kind) + whole[end - base :]


def _run_prefix(rule: Rule, text: str, found: list[int]) -> str:
    def replace(match: re.Match[str]) -> str:
        start = match.start()
        if rule.bounded and start and text[start - 1] in _WORD_CHARS:
            return match.group(0)
        replaced = _replacement(rule, match, found)
        return match.group(0) if replaced is None else replaced

    return rule.pattern.sub(replace, text)


def _anchor_positions(haystack: str, anchors: tuple[str, ...]) -> list[int]:
    positions: set[int] = set()
    for anchor in anchors:
        at = haystack.find(anchor)
        while at != -1:
            positions.add(at)
            at = haystack.find(anchor, at + 1)
    return sorted(positions)


def _run_anchored(rule: Rule, text: str, haystack: str, found: list[int]) -> str:
    positions = _anchor_positions(haystack, rule.anchors)
    if not positions:
        return text
    pieces: list[str] = []
    cursor = 0
    for at in positions:
        if at < cursor:
            continue
        start = at
        if rule.lead is not None:
            lead = rule.lead.search(haystack, max(cursor, at - _LEAD_SPAN), at)
            if lead is None:
                continue
            start = lead.start()
        match = rule.pattern.match(text, start)
        if match is None:
            continue
        replaced = _replacement(rule, match, found)
        if replaced is None:
            continue
        pieces.append(text[cursor : match.start()])
        pieces.append(replaced)
        cursor = match.end()
    if not pieces:
        return text
    pieces.append(text[cursor:])
    return "".join(pieces)


def _fold(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def apply_rules(rules: Sequence[Rule], text: str) -> tuple[str, int]:
    """Run ``rules`` in order over ``text``; return the redacted text and how many secrets went."""
    found = [0]
    folded: str | None = None
    for rule in rules:
        before = found[0]
        if not rule.anchors:
            text = _run_prefix(rule, text, found)
        elif rule.folded:
            if folded is None:
                folded = _fold(text)
            text = _run_anchored(rule, text, folded, found)
        else:
            text = _run_anchored(rule, text, text, found)
        if found[0] != before:
            folded = None
    return text, found[0]
