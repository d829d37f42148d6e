"""The cues by which people say that a rule changed ("from now on", "switch to", "instead"), and how
a text is searched for them: as phrases of prose, never inside a word or an identifier; and the cues
by which they turn to the listener before saying it ("reminder: ", "again, ": ``lead_in``).

Apart from the words and values of ``terms.py`` because a cue is a phrase, not a subject word or a
value: the consolidate cycle takes a cue for a change (``supersession``) and recall for a hit that
says one (``restated``); an address is no subject (``address_words``: supersession's shared words,
recall's topic crowding) and no part of a convention's title. The policy lets a deployment replace
each list.
"""

from __future__ import annotations

import re
from functools import lru_cache

from codememory.memory.terms import analyse

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
# phrases that contain a change cue without saying that anything changed: "for now" is temporary, and
# "new" after a word that ranges over a kind of thing ("a story for new components", "every new
# permission", "on new POST routes") names the things a rule is about, not a change ("a new" is not
# here: "put a new job's schedule in Workflows" came with a real change); and a negated "new" ("the
# oldest sample is dropped, not the new one") says which thing a rule keeps, not that the rule changed
NOT_CHANGE_CUES = (
    "for now",
    "right now",
    "just now",
    "until now",
    "now that",
    "new file",
    "new branch",
    "for new",
    "every new",
    "each new",
    "any new",
    "all new",
    "on new",
    "not the new",
    "not a new",
    "not new",
)


# how people address the listener before a rule ("reminder: ...", "again, ...", "just so you know, ..."):
# left out of a convention's title, and no subject word when two memories' subjects are compared
ADDRESS_CUES = (
    "again",
    "once again",
    "once more",
    "reminder",
    "quick reminder",
    "friendly reminder",
    "remember",
    "just so you know",
    "fyi",
    "heads up",
    "note",
    "btw",
    "by the way",
    "as i said",
    "as discussed",
    "ps",
)
_BARE_LEAD_INS = ("fyi", "btw")  # address cues that need no punctuation after them


@lru_cache(maxsize=16)
def address_words(cues: tuple[str, ...] = ADDRESS_CUES) -> frozenset[str]:
    """The subject-word stems of ``cues`` ("reminder" -> "remind"): words that address the listener
    say nothing about what two texts are about."""
    return analyse(" ".join(cues))[0]


def lead_in(text: str, cues: tuple[str, ...] = ADDRESS_CUES) -> str:
    """The phrase addressing the listener that ``text`` opens with, with its punctuation ("reminder: ",
    "again, "), or "" when it opens with what it says. A cue counts only when a colon, comma or dash
    follows it ("note the new port" asks the listener to notice something, "note: the port is 8080"
    only turns to them before saying it), except a bare ``fyi`` / ``btw`` (``_BARE_LEAD_INS``)."""
    pattern = _lead_in(cues)
    found = pattern.match(text) if pattern is not None else None
    return found.group(0) if found else ""


@lru_cache(maxsize=16)
def _lead_in(cues: tuple[str, ...]) -> re.Pattern[str] | None:
    if not cues:
        return None
    alternatives = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    bare = "|".join(c for c in cues if c in _BARE_LEAD_INS) or "(?!)"
    return re.compile(rf"\s*(?:(?:{alternatives})\s*[:,\u2014-]|(?:{bare})\b)\s*(?=\S)", re.IGNORECASE)


def has_cue(text: str, cues: tuple[str, ...]) -> bool:
    """Whether the text says one of ``cues`` as words (``switch`` matches "switch", not "switchboard")."""
    return bool(cues_of(text, cues))


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
