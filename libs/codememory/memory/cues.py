"""The cues by which people say that a rule changed ("from now on", "switch to", "instead"), and how
a text is searched for them: as phrases of prose, never inside a word or an identifier.

Apart from the words and values of ``terms.py`` because a cue is a phrase, not a subject word or a
value: the consolidate cycle takes a cue for a change (``supersession``) and recall for a hit that
says one (``restated``); the policy lets a deployment replace both lists.
"""

from __future__ import annotations

import re
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
