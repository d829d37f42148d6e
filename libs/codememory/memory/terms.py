"""The words of a memory that name its subject, the values it states, and the cues it carries.

Two memories are about the same subject when they share most of their subject words (stemmed,
stop words left out); a later one changes the earlier when it states a value the earlier did not
(a number, an identifier, a quoted name) or says so with a change cue. Pure string work.

It lives with the memories because two readers ask it the same questions: the consolidate cycle
(what merges, what supersedes) and recall (whether a hit restates one ranked above it).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

# how people say that a rule changed ("from now on", "switch to", "instead") — checked as phrases
CHANGE_CUES = (
    "instead",
    "now",
    "from now on",
    "going forward",
    "no longer",
    "not anymore",
    "switch",
    "switched",
    "switching",
    "change",
    "changed",
    "rather than",
    "replace",
    "replaced",
    "replaces",
    "stop using",
    "move to",
    "moved to",
    "moves to",
    "moving to",
    "migrate",
    "migrated",
    "raise",
    "bump",
    "lower",
    "increase",
    "decrease",
    "upgrade",
    "downgrade",
    "drop",
    "dropping",
    "deprecated",
    "starting",
    "new",
    "update:",
    "actually",
)
# phrases that contain a change cue without saying that anything changed ("for now" is temporary)
NOT_CHANGE_CUES = ("for now", "right now", "just now", "until now", "now that", "new file", "new branch")

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
def _named_words(value: str) -> frozenset[str]:
    """The words an identifier or path is made of (``slog.info``: slog, info), as subject words: a
    value names what it is about. Numbers name none, so a segment with a digit is skipped
    (``pnpm@9.12.0`` names pnpm, ``int64`` nothing)."""
    segments = (seg for seg in _SEGMENT.split(value.strip("`\"'")) if not any(ch.isdigit() for ch in seg))
    parts = (p.lower() for seg in segments for p in _PART.findall(seg))
    return frozenset(_stem(p) for p in parts if len(p) >= 3 and p not in _STOP)


@lru_cache(maxsize=65536)
def analyse(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(subject words, values) of a text: stemmed lowercase words without stop words, and values."""
    subject: set[str] = set()
    values: set[str] = set()
    for raw in _TOKEN.findall(text):
        token = raw.rstrip(".:-/,;")
        if not token:
            continue
        if _is_value(token):
            values.add(token.strip("`\"'").lower())
            continue
        word = token.lower()
        if len(word) >= 3 and word not in _STOP and word.isalpha():
            subject.add(_stem(word))
    return frozenset(subject), frozenset(values)


@lru_cache(maxsize=65536)
def _with_named(text: str) -> frozenset[str]:
    named = (_named_words(t) for raw in _TOKEN.findall(text) if (t := raw.rstrip(".:-/,;")) and _is_value(t))
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


def has_cue(text: str, cues: tuple[str, ...]) -> bool:
    """Whether the text says one of ``cues`` as words (``switch`` matches "switch", not "switchboard")."""
    return bool(cues_of(text, cues))


def is_question(text: str) -> bool:
    """A question states no rule: it cannot supersede or be the canonical wording of one."""
    return text.rstrip().endswith("?")


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(t.rstrip(".:-/,;").lower() for t in _TOKEN.findall(text))


def parallel(a: str, b: str, threshold: float) -> bool:
    """The same sentence about another thing ("fix the type errors in a.py" / "... in b.py"): most
    tokens shared in the same order. Such memories state one thing each about different subjects."""
    return SequenceMatcher(None, _tokens(a), _tokens(b), autojunk=False).ratio() >= threshold


@lru_cache(maxsize=256)
def _phrases(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for a list of phrases as words of prose: not inside a word or an identifier
    (``now`` is not a cue in ``datetime.now()``)."""
    if not phrases:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})(?![\w(])")


@lru_cache(maxsize=65536)
def cues_of(text: str, cues: tuple[str, ...], ignore: tuple[str, ...] = ()) -> frozenset[str]:
    """Which of ``cues`` the text says (as words), not counting those inside an ``ignore`` phrase."""
    lowered = " " + " ".join(text.lower().split()) + " "
    skip = _phrases(ignore)
    if skip is not None:
        lowered = skip.sub(" ", lowered)
    found: set[str] = set()
    for cue in cues:  # each on its own: "from now on" holds the cue "now" too
        pattern = _phrases((cue,))
        if pattern is not None and pattern.search(lowered):
            found.add(cue)
    return frozenset(found)


def only_numbers_differ(a: str, b: str) -> bool:
    """Whether every token one text has and the other lacks carries a digit (``port 8080`` / ``port
    9090``): the same sentence with another number is a changed value, not another subject."""
    ta, tb = set(_tokens(a)), set(_tokens(b))
    return all(any(ch.isdigit() for ch in token) for token in ta ^ tb)


def different_subjects(a: str, b: str) -> bool:
    """Each text has subject words the other lacks ("settings page" / "CSV export")."""
    sa, sb = analyse(a)[0], analyse(b)[0]
    return bool(sa - sb) and bool(sb - sa)


def _subject_sequence(text: str) -> list[str]:
    """The text's tokens as subject-word stems, "" for every other token (stop words, values)."""
    out = []
    for raw in _TOKEN.findall(text):
        token = raw.rstrip(".:-/,;")
        word = token.lower()
        subject = token and not _is_value(token) and len(word) >= 3 and word.isalpha() and word not in _STOP
        out.append(_stem(word) if subject else "")
    return out


def contrasted(a: str, b: str) -> bool:
    """Whether the two name different kinds of one thing: a subject word both share stands right
    after a word only ``a`` has in ``a`` and right after another only ``b`` has in ``b`` ("audit logs
    are kept for 7 years" / "debug logs are kept for 14 days", "the production node pool" / "the CI
    runner pool", "error toasts" / "success toasts"). Such statements set values of two subjects."""
    sa, sb = _subject_sequence(a), _subject_sequence(b)
    only_a, only_b = set(sa) - set(sb) - {""}, set(sb) - set(sa) - {""}
    if not only_a or not only_b:
        return False
    before_a = {w: sa[i - 1] for i, w in enumerate(sa) if w and i and sa[i - 1] in only_a}
    before_b = {w: sb[i - 1] for i, w in enumerate(sb) if w and i and sb[i - 1] in only_b}
    return bool(before_a.keys() & before_b.keys())


PARALLEL_RATIO = 0.6  # token sequences this alike say the same sentence of another thing (the default)


SLOT_REACH = 2  # tokens on each side of a value whose subject words say what the value is for


@lru_cache(maxsize=65536)
def _slots(text: str) -> dict[str, frozenset[str]]:
    """Each value of a text with the subject words at most ``SLOT_REACH`` tokens before or after it:
    what the value is set for (``indent with 4 spaces``: ``4`` for ``indent``, ``space``)."""
    tokens = [raw.rstrip(".:-/,;") for raw in _TOKEN.findall(text)]
    words = [
        _stem(t.lower())
        if t and not _is_value(t) and len(t) >= 3 and t.isalpha() and t.lower() not in _STOP
        else ""
        for t in tokens
    ]
    slots: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        if token and _is_value(token):
            near = words[max(0, i - SLOT_REACH) : i] + words[i + 1 : i + 1 + SLOT_REACH]
            slots.setdefault(token.strip("`\"'").lower(), set()).update(w for w in near if w)
    return {value: frozenset(near) for value, near in slots.items()}


@lru_cache(maxsize=65536)
def _numbers(text: str) -> tuple[str, ...]:
    """The text's values with a digit (``_slots`` keys)."""
    return tuple(v for v in _slots(text) if any(ch.isdigit() for ch in v))


def conflicting_values(a: str, b: str) -> bool:
    """Whether two texts set one thing to different values: a value only ``a`` states and one only
    ``b`` states that are both numbers, that stand by a common subject word (``indent with 4
    spaces`` / ``indent with 2 spaces``; ``tracking uri is mlflow.internal`` / ``... is
    wandb.internal``), or that are made of a common word (``UserCard.tsx`` / ``user-card.tsx``,
    ``stg_shopify_orders`` / ``stg__shopify__orders``). Values each side names for different
    things are details, not a conflict ("a zod schema hooked up through zodResolver" / "no
    validation by hand in onChange")."""
    slots_a, slots_b = _slots(a), _slots(b)
    only_a = [v for v in slots_a if v not in slots_b]
    only_b = [v for v in slots_b if v not in slots_a] if only_a else []
    if not only_b:
        return False
    # some pair of them conflicts exactly when their sides' words meet (recall asks this of every
    # pair of alike hits: one pass over each side, not over each pair of values)
    if any(v not in slots_b for v in _numbers(a)) and any(v not in slots_a for v in _numbers(b)):
        return True
    near_a = frozenset().union(*(slots_a[v] for v in only_a))
    if not near_a.isdisjoint(frozenset().union(*(slots_b[v] for v in only_b))):
        return True
    named_a = frozenset().union(*(_named_words(v) for v in only_a))
    return not named_a.isdisjoint(frozenset().union(*(_named_words(v) for v in only_b)))


def same_statement(a: str, b: str, parallel_ratio: float, *, strict: bool = True) -> bool:
    """Whether two texts alike in meaning can state the same thing: not one a question and the other
    not, no values that set one thing differently (``conflicting_values``: ``4 spaces`` / ``2
    spaces``; a value only one names is a detail, not a conflict), and not the same sentence frame
    filled with different things ("the settings page broke" / "the CSV export broke": ``parallel``,
    each with subject words the other lacks). ``strict``, as a merge needs (it takes a memory out of
    recall, so it must be sure): any value on each side that the other lacks is a conflict, and two
    kinds of one thing are two subjects (``contrasted``: "error toasts ..." / "success toasts ...");
    recall's ordering, which only moves a hit down, asks for ``conflicting_values``."""
    if is_question(a) != is_question(b):
        return False
    if (new_values(b, a) and new_values(a, b)) if strict else conflicting_values(a, b):
        return False
    if strict and contrasted(a, b):
        return False
    return not (parallel(a, b, parallel_ratio) and different_subjects(a, b))
