"""One detection rule and the engine that applies an ordered list of them.

Why it is built this way: the hook client runs in a fresh process per hook call with a ~60 ms
budget. Compiling every pattern up front would cost that process ~15 ms, so each pattern is
compiled the first time a text could match it (cheap literal ``gates`` or ``anchors`` occur in
it) and then kept for the life of the process. Scanning must also run at C speed, and CPython's
``re`` scans fast only when a pattern starts with a literal, so a rule is either

* a *prefix* rule, whose pattern starts with its vendor prefix (``gh``, ``AKIA``...) and runs as
  one ``re.sub`` pass (when ``bounded``, the word boundary before the prefix is checked per match,
  because a leading look-behind would disable the fast scan); or
* an *anchored* rule, for case-insensitive or name-led secrets (``DB_PASSWORD=...``): ``str.find``
  locates its anchors in the (lower-cased) text and the pattern is only tried there. ``lead``
  optionally moves the start back from an anchor (``api_`` before ``key``).

Only the named group ``secret`` of a match (or the whole match, without one) is replaced; the
rest (``postgres://user:``, ``API_KEY=``, ``Bearer ``) is kept so the text still reads as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

REDACTED_PREFIX = "[REDACTED:"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_LEAD_SPAN = 16

Decide = Callable[["re.Match[str]"], str | None]


def marker(kind: str) -> str:
    """The text that replaces one secret of ``kind``."""
    return f"{REDACTED_PREFIX}{kind}]"


class LazyPattern:
    """A regular expression compiled on first use, then reused for the life of the process."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        """The compiled pattern."""
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled


class Rule:
    """A pattern whose group ``secret`` (or whole match) becomes ``[REDACTED:<kind>]``.

    A prefix rule (no ``anchors``) runs only when one of its ``gates`` occurs in the text (always,
    without gates). An anchored rule runs where its ``anchors`` occur; with ``folded`` the anchors
    are lower case and looked up in the lower-cased text. ``decide`` sees each match and returns
    the kind to report, or ``None`` to leave the match alone.

    A plain slotted class rather than a dataclass: importing ``dataclasses`` alone would cost the
    hook client more than all of its redaction work on a typical payload.
    """

    __slots__ = ("_lead", "_pattern", "anchors", "bounded", "decide", "folded", "gates", "kind", "whole")

    def __init__(
        self,
        kind: str,
        source: str,
        *,
        gates: tuple[str, ...] = (),
        anchors: tuple[str, ...] = (),
        folded: bool = False,
        lead: str | None = None,
        decide: Decide | None = None,
        bounded: bool = False,
    ) -> None:
        self.kind = kind
        self._pattern = LazyPattern(source)
        self._lead = None if lead is None else LazyPattern(lead)
        self.gates = gates
        self.anchors = anchors
        self.folded = folded
        self.decide = decide
        self.bounded = bounded
        self.whole = "(?P<secret>" not in source

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (compiling it now if this is its first use)."""
        return self._pattern.get()

    @property
    def lead(self) -> re.Pattern[str] | None:
        """Where a match starts relative to an anchor, if not at the anchor itself."""
        return None if self._lead is None else self._lead.get()

    def __repr__(self) -> str:
        return f"Rule({self.kind!r}, {self._pattern.source[:40]!r})"


def _replacement(rule: Rule, match: re.Match[str], found: list[int]) -> str | None:
    group = 0 if rule.whole else "secret"
    secret = match.group(group)
    if not secret or REDACTED_PREFIX in secret:
        return None
    kind = rule.kind if rule.decide is None else rule.decide(match)
    if kind is None:
        return None
    found[0] += 1
    whole = match.group(0)
    base = match.start()
    start, end = match.span(group)
    return whole[: start - base] + marker(kind) + whole[end - base :]


def _run_prefix(rule: Rule, text: str, found: list[int]) -> str:
    if rule.gates and not any(gate in text for gate in rule.gates):
        return text

    def replace(match: re.Match[str]) -> str:
        start = match.start()
        if rule.bounded and start and text[start - 1] in _WORD_CHARS:
            return match.group(0)
        replaced = _replacement(rule, match, found)
        return match.group(0) if replaced is None else replaced

    return rule.pattern.sub(replace, text)


def _anchor_positions(haystack: str, anchors: tuple[str, ...]) -> list[int]:
    positions: list[int] = []
    for anchor in anchors:
        at = haystack.find(anchor)
        while at != -1:
            positions.append(at)
            at = haystack.find(anchor, at + 1)
    if len(anchors) > 1:
        positions.sort()
    return positions


def _run_anchored(rule: Rule, text: str, haystack: str, found: list[int]) -> str:
    positions = _anchor_positions(haystack, rule.anchors)
    if not positions:
        return text
    pattern = rule.pattern
    lead = rule.lead
    pieces: list[str] = []
    cursor = 0
    for at in positions:
        if at < cursor:
            continue
        start = at
        if lead is not None:
            led = lead.search(haystack, max(cursor, at - _LEAD_SPAN), at)
            if led is None:
                continue
            start = led.start()
        match = pattern.match(text, start)
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
    """Lower-case ``text`` keeping every character at its index (so anchors line up)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


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
