"""The words of a memory that name its subject and the values it states.

Two memories are about the same subject when they share most of their subject words (stemmed,
stop words left out); a later one changes the earlier when it states a value the earlier did not
(a number, an identifier, a quoted name). Pure string work on one text at a time, cached: recall
analyses every new hit's text. Whether two texts state the same thing is ``statements.py``; how
people say that something changed is ``cues.py``.

It lives with the memories because two readers ask it the same questions: the consolidate cycle
(what merges, what supersedes) and recall (whether a hit restates one ranked above it).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

_TOKEN = re.compile(r"`[^`]+`|\"[^\"]+\"|'[^'\s][^']*'|[A-Za-z0-9_][A-Za-z0-9_.:/@\-]*")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "ies", "ied", "ed", "es", "er", "ly", "s")
_STOP_WORDS = """a an the and or but if then else of to in on at by for with from as is are was were be been
being it its this that these those there here we our us you your they them their he she i me my mine
do does did done have has had will would should shall can could may might must not no yes all any
each every some more most less least very just also only so than too use uses used using please let
lets make sure always now new old keep want need like what which who whom when where why how about
into over under again once because while though get got go going one two thing things file files
code okay ok thanks"""
_STOP = frozenset(_STOP_WORDS.split())


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            stem = word[: -len(suffix)]
            if suffix in ("ing", "ed", "er", "ers") and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                return stem[:-1]  # logging, logged, logger: log (but dress, fill keep their pair)
            return stem
    return word


@lru_cache(maxsize=65536)
def _is_value(token: str) -> bool:
    """A value, not a word: quoted, or with a digit, an inner dot/slash/underscore/colon/at/hyphen
    (``acme.io``, ``ops@acme.io``, ``expo-image``), or camelCase. Cached, and a plain word (letters
    only: no digit, no mark) asks the camelCase test alone: recall analyses every new hit's text."""
    if token[0] not in "`\"'" and token.isalpha():
        return _CAMEL.search(token) is not None
    return (
        token[0] in "`\"'"
        or any(ch.isdigit() for ch in token)
        or any(ch in token.strip(".:-/") for ch in "._/:@-")
        or _CAMEL.search(token) is not None
    )


_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")

_SEGMENT = re.compile(r"[@/:=]")


@lru_cache(maxsize=65536)
def named_words(value: str) -> frozenset[str]:
    """The words an identifier or path is made of (``slog.info``: slog, info), as subject words: a
    value names what it is about. Numbers name none, so a segment with a digit is skipped
    (``pnpm@9.12.0`` names pnpm, ``int64`` nothing)."""
    segments = (seg for seg in _SEGMENT.split(value.strip("`\"'")) if not any(ch.isdigit() for ch in seg))
    parts = (p.lower() for seg in segments for p in _PART.findall(seg))
    return frozenset(_stem(p) for p in parts if len(p) >= 3 and p not in _STOP)


class _Scan(NamedTuple):
    """A text's tokens, each read once: the readers below (subject words, values, their slots, the
    token sequence) ask the same questions of every token, and recall asks them of each new hit."""

    found: tuple[str, ...]  # the tokens without trailing punctuation ("" when nothing is left)
    value: tuple[bool, ...]  # per token: a value (``_is_value``)
    words: tuple[str, ...]  # per token: its subject-word stem, "" for a value, a stop word or a mark


@lru_cache(maxsize=65536)
def _scan(text: str) -> _Scan:
    """The text's tokens and what each is (``_Scan``), worked out once for all the readers."""
    found = tuple(raw.rstrip(".:-/,;") for raw in _TOKEN.findall(text))
    value = tuple(bool(t) and _is_value(t) for t in found)
    words = tuple(
        _stem(low) if t and not v and len(t) >= 3 and t.isalpha() and (low := t.lower()) not in _STOP else ""
        for t, v in zip(found, value, strict=True)
    )
    return _Scan(found, value, words)


@lru_cache(maxsize=65536)
def analyse(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(subject words, values) of a text: stemmed lowercase words without stop words, and values."""
    scan = _scan(text)
    values = (t.strip("`\"'").lower() for t, v in zip(scan.found, scan.value, strict=True) if v)
    return frozenset(w for w in scan.words if w), frozenset(values)


@lru_cache(maxsize=65536)
def _with_named(text: str) -> frozenset[str]:
    scan = _scan(text)
    named = (named_words(t) for t, v in zip(scan.found, scan.value, strict=True) if v)
    return analyse(text)[0].union(*named)


def subject_words(text: str) -> frozenset[str]:
    """A text's subject words with the words of the identifiers and paths it names."""
    return _with_named(text)


def subject_overlap(a: str, b: str, *, named: bool = False) -> float:
    """Shared subject words over the smaller subject (0 when either has none); ``named``: with the
    words of the identifiers and paths each names (``slog.Info`` shares ``slog`` with "use slog")."""
    sa, sb = (_with_named(a), _with_named(b)) if named else (analyse(a)[0], analyse(b)[0])
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


def new_values(earlier: str, later: str) -> frozenset[str]:
    """Values the later text states that the earlier did not."""
    return analyse(later)[1] - analyse(earlier)[1]


@lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """The text's tokens, lowercase, without trailing punctuation."""
    return tuple(t.lower() for t in _scan(text).found)


def subject_sequence(text: str) -> list[str]:
    """The text's tokens as subject-word stems, "" for every other token (stop words, values)."""
    return list(_scan(text).words)


SLOT_REACH = 2  # tokens on each side of a value whose subject words say what the value is for


@lru_cache(maxsize=65536)
def value_slots(text: str) -> dict[str, frozenset[str]]:
    """Each value of a text with the subject words at most ``SLOT_REACH`` tokens before or after it:
    what the value is set for (``indent with 4 spaces``: ``4`` for ``indent``, ``space``)."""
    found, is_value, words = _scan(text)
    slots: dict[str, set[str]] = {}
    for i, token in enumerate(found):
        if is_value[i]:
            near = words[max(0, i - SLOT_REACH) : i] + words[i + 1 : i + 1 + SLOT_REACH]
            slots.setdefault(token.strip("`\"'").lower(), set()).update(near)
    for words_near in slots.values():
        words_near.discard("")
    return {value: frozenset(near) for value, near in slots.items()}


PLACE_REACH = 3  # the same for ``value_places``: "minSdk goes to 26"


@lru_cache(maxsize=65536)
def value_places(text: str) -> dict[str, frozenset[str]]:
    """Each value with what it stands by, as ``value_slots`` but ``PLACE_REACH`` tokens far, counting
    the words of the values near it too (in "set line-length = 88" the ``88`` is set for ``line``
    and ``length``) and never past another number, which has its own place ("above 2% for 5
    minutes": the minutes are the 5's, not the 2's)."""
    found = [raw.rstrip(".:-/,;") for raw in _TOKEN.findall(text)]
    words: list[frozenset[str] | None] = []  # None: a number, where a place ends
    for t in found:
        if t and _is_value(t):
            words.append(None if is_number(t.strip("`\"'").lower()) else named_words(t))
        elif t and len(t) >= 3 and t.isalpha() and t.lower() not in _STOP:
            words.append(frozenset((_stem(t.lower()),)))
        else:
            words.append(frozenset())
    places: dict[str, set[str]] = {}
    for i, token in enumerate(found):
        if token and _is_value(token):
            place = places.setdefault(token.strip("`\"'").lower(), set())
            for side in (words[i - 1 :: -1][:PLACE_REACH] if i else [], words[i + 1 : i + 1 + PLACE_REACH]):
                for near in side:
                    if near is None:
                        break
                    place.update(near)
    return {value: frozenset(near) for value, near in places.items()}


_EXTENSION = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


@lru_cache(maxsize=65536)
def is_number(value: str) -> bool:
    """A value that states a number: one with a digit (``8080``, ``v1.2``, ``python3.11``, ``18.x``,
    ``config.py:42``), unless its digits are part of a file name or a dotted identifier: a last
    dotted part that is a name (a letter first) after a part with a letter (``intro.mp4``,
    ``v2.mp4``, ``e2e.test.ts``, ``api.v2``). Such a value names a thing, as a word does."""
    if not any(ch.isdigit() for ch in value):
        return False
    head, dot, last = value.rpartition(".")
    before = head.rpartition(".")[2]
    return not (dot and _EXTENSION.fullmatch(last) and any(ch.isalpha() for ch in before))


@lru_cache(maxsize=65536)
def number_values(text: str) -> tuple[str, ...]:
    """The text's values that state a number (``is_number``; ``value_slots`` keys)."""
    return tuple(v for v in value_slots(text) if is_number(v))


_CLAUSE = re.compile(r"[,;!?\n(]|[.:]\s|\bbut\b")
_REJECTING = re.compile(r"\b(?:never|not|no|don'?t|do not|avoid|without|instead of)\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def rejected_values(text: str) -> frozenset[str]:
    """The values a text names only to reject them: those after "never", "not", "no", "don't",
    "avoid", "without" or "instead of" in the same clause ("hash with argon2id, never bcrypt or
    sha256": ``sha256``; "date-fns instead of moment"). A restatement that rejects another value than
    the one it sets does not set that value (``statements.conflicting_values``)."""
    if _REJECTING.search(text) is None:  # no clause rejects (most texts): no split
        return frozenset()
    rejected: set[str] = set()
    for clause in _CLAUSE.split(text):
        found = _REJECTING.search(clause)
        if found is not None:
            rejected.update(value_slots(clause[found.end() :]))
    return frozenset(rejected)
