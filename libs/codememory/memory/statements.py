"""Whether two memories state the same thing: a question against a rule, values that set one thing
differently, the same sentence about another thing, two kinds of one thing.

Built on the words and values of one text (``terms.py``); asked of pairs by the consolidate cycle
(what merges, what supersedes) and by recall (whether a hit restates one ranked above it), so these
answers must stay cheap (recall asks them of every pair of alike hits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from codememory.memory.terms import (
    analyse,
    is_number,
    named_words,
    new_values,
    number_values,
    rejected_values,
    subject_sequence,
    tokens,
    value_places,
    value_slots,
)


def is_question(text: str) -> bool:
    """A question states no rule: it cannot supersede or be the canonical wording of one."""
    return text.rstrip().endswith("?")


def parallel(a: str, b: str, threshold: float) -> bool:
    """The same sentence about another thing ("fix the type errors in a.py" / "... in b.py"): most
    tokens shared in the same order. Such memories state one thing each about different subjects."""
    matcher = SequenceMatcher(None, tokens(a), tokens(b), autojunk=False)
    # the two quick ratios bound the ratio from above: most pairs are told apart by them, cheaply
    return (
        matcher.real_quick_ratio() >= threshold
        and matcher.quick_ratio() >= threshold
        and matcher.ratio() >= threshold
    )


def only_numbers_differ(a: str, b: str) -> bool:
    """Whether every token one text has and the other lacks states a number (``port 8080`` / ``port
    9090``): the same sentence with another number is a changed value, not another subject. A number
    is what ``terms.is_number`` says, as for ``conflicting_values``: ``intro.mp4`` / ``outro.mp4``
    name two files, two subjects."""
    ta, tb = set(tokens(a)), set(tokens(b))
    return all(is_number(token.strip("`\"'")) for token in ta ^ tb)


def different_subjects(a: str, b: str) -> bool:
    """Each text has subject words the other lacks ("settings page" / "CSV export")."""
    sa, sb = analyse(a)[0], analyse(b)[0]
    return bool(sa - sb) and bool(sb - sa)


def contrasted(a: str, b: str) -> bool:
    """Whether the two name different kinds of one thing: a subject word both share stands right
    after a word only ``a`` has in ``a`` and right after another only ``b`` has in ``b`` ("audit logs
    are kept for 7 years" / "debug logs are kept for 14 days", "the production node pool" / "the CI
    runner pool", "error toasts" / "success toasts"). Such statements set values of two subjects."""
    sa, sb = subject_sequence(a), subject_sequence(b)
    only_a, only_b = set(sa) - set(sb) - {""}, set(sb) - set(sa) - {""}
    if not only_a or not only_b:
        return False
    before_a = {w: sa[i - 1] for i, w in enumerate(sa) if w and i and sa[i - 1] in only_a}
    before_b = {w: sb[i - 1] for i, w in enumerate(sb) if w and i and sb[i - 1] in only_b}
    return bool(before_a.keys() & before_b.keys())


PARALLEL_RATIO = 0.6  # token sequences this alike say the same sentence of another thing (the default)


def _extends(value: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` (each one word, as ``value``) extends ``value`` or is extended by it."""
    return any(word != value and (word.startswith(value) or value.startswith(word)) for word in words)


_WORD = re.compile(r"[a-z][a-z0-9]{3,}")


@lru_cache(maxsize=65536)
def _one_word(value: str) -> bool:
    return _WORD.fullmatch(value) is not None


@dataclass(frozen=True, slots=True)
class _Values:
    """What ``conflicting_values`` asks of one text, worked out once per text: recall asks it of every
    pair of alike hits, each text against up to twenty others, so the per-pair part is set work."""

    slots: dict[str, frozenset[str]]  # ``value_slots``
    settable: tuple[str, ...]  # the values the text does not reject, in its order
    words: tuple[str, ...]  # the values that are one word (``spells_out``)
    numbers: frozenset[str]  # the values that state a number

    def spells_out(self, value: str) -> bool:
        """Whether this text names ``value`` more or less precisely, as one word of letters and digits
        that extends it or that it extends (``argon2`` / ``argon2id``, ``postgres`` / ``postgresql``):
        one name, not two values. Never a plain number (``80`` / ``8080``), a name of under four
        characters or one with separators (``stg_`` / ``stg__shopify__orders`` are two patterns)."""
        return _one_word(value) and _extends(value, self.words)

    def only(self, other: _Values) -> list[str]:
        """The values this text sets that ``other`` neither names nor spells out."""
        return [v for v in self.settable if v not in other.slots and not other.spells_out(v)]


@lru_cache(maxsize=65536)
def _values(text: str) -> _Values:
    slots, rejected = value_slots(text), rejected_values(text)
    return _Values(
        slots,
        tuple(v for v in slots if v not in rejected),
        tuple(v for v in slots if _one_word(v)),
        frozenset(number_values(text)),
    )


def conflicting_values(a: str, b: str) -> bool:
    """Whether two texts set one thing to different values: a value only ``a`` states and one only
    ``b`` states that are both numbers, or, both paths or both not, that stand by a common subject
    word (``indent with 4 spaces`` / ``indent with 2 spaces``; ``tracking uri is mlflow.internal`` /
    ``... is wandb.internal``) or are made of a common word (``UserCard.tsx`` / ``user-card.tsx``,
    ``stg_shopify_orders`` / ``stg__shopify__orders``); a path and a name set two things
    (``argon2id`` / ``auth/passwords.py``). Values each side names for different things are details,
    not a conflict ("a zod schema hooked up through zodResolver" / "no validation by hand in
    onChange"). A value a text rejects (``rejected_values``: "argon2id, never bcrypt or sha256") is
    not one it sets. (Which of two texts changed a rule is not told by values but by change cues.)"""
    values_a, values_b = _values(a), _values(b)
    only_a = values_a.only(values_b)
    only_b = values_b.only(values_a) if only_a else []
    if not only_b:
        return False
    # some pair of them conflicts exactly when their sides' words meet (recall asks this of every
    # pair of alike hits: one pass over each side, not over each pair of values)
    if not values_a.numbers.isdisjoint(only_a) and not values_b.numbers.isdisjoint(only_b):
        return True
    slots_a, slots_b = values_a.slots, values_b.slots
    for path in (True, False):  # a path and a name set two things, whatever stands by them
        side_a = [v for v in only_a if ("/" in v) == path]
        side_b = [v for v in only_b if ("/" in v) == path]
        if not side_a or not side_b:
            continue
        near_a = frozenset().union(*(slots_a[v] for v in side_a))
        if not near_a.isdisjoint(frozenset().union(*(slots_b[v] for v in side_b))):
            return True
        named_a = frozenset().union(*(named_words(v) for v in side_a))
        if not named_a.isdisjoint(frozenset().union(*(named_words(v) for v in side_b))):
            return True
    return False


def replaced_value(earlier: str, later: str) -> tuple[str, str] | None:
    """(old, new) when the later text names a value the earlier one sets and sets a new number in its
    place: how people say that a setting changed ("bump the line length to 110, at 88 ...": ``88`` ->
    ``110``; "minSdk goes to 26" after "keep minSdkVersion at 23": ``minsdkversion`` -> ``26``).
    Named: the same value, or one spelt out more or less precisely (``_Values.spells_out``), that the earlier
    text does not reject. In its place: the new number stands by a word (``value_places``) that the
    old number stood by in the earlier text, or, the named value being a name, that a number the
    earlier set and the later no longer names stood by ("above 2% for 5 minutes" keeps the ``5`` of
    "above 800ms for 5 minutes" and sets another threshold: not a replacement). A new name beside an
    old one is not read as a replacement: "locales/en.json and locales/de.json" adds, it does not
    replace. None otherwise."""
    values_e, values_l = _values(earlier), _values(later)
    slots_e, slots_l = values_e.slots, values_l.slots
    rejected_e, rejected_l = rejected_values(earlier), rejected_values(later)
    named = [v for v in slots_e if v not in rejected_e and (v in slots_l or values_l.spells_out(v))]
    fresh = [v for v in slots_l if v not in slots_e and v not in rejected_l and not values_e.spells_out(v)]
    if not named or not fresh:
        return None
    places_e, places_l = value_places(earlier), value_places(later)
    dropped = [v for v in number_values(earlier) if v not in slots_l and v not in rejected_e]
    for new in (v for v in fresh if is_number(v)):
        for old in named:
            stood = [old] if is_number(old) else dropped
            if any(not places_l[new].isdisjoint(places_e[o]) for o in stood):
                return old, new
    return None


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
    return not (different_subjects(a, b) and parallel(a, b, parallel_ratio))  # the cheaper test first
