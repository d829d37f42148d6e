"""The readers of one text built on its tokens read once (``terms._scan``) answer as each did when it
read the text on its own: recall asks them of every new hit, so they were made to share one pass, and
this pins that the words, values, slots and token sequence did not change."""

from __future__ import annotations

import random

from codememory.memory import terms
from codememory.memory.terms import _TOKEN, _is_value, _stem, analyse, subject_sequence, tokens, value_slots

PIECES = ["indent", "with", "4", "spaces", "the", "Logging", "`max_retries`", "config/http.yaml", "port",
          "8080.", "UserCard.tsx", "ops@acme.io,", '"quoted name"', "no", "never", "bcrypt;", "it's",
          "slog.Info", "x", "a.b:", "--", "(see", "python3.11)", "and", "filling"]  # fmt: skip


def _subject(token: str) -> str:
    word = token.lower()
    if token and not _is_value(token) and len(word) >= 3 and word.isalpha() and word not in terms._STOP:
        return _stem(word)
    return ""


def reference(text: str) -> tuple[object, ...]:
    """Each reader as it was written before the shared pass: its own walk over the tokens."""
    found = [raw.rstrip(".:-/,;") for raw in _TOKEN.findall(text)]
    words = [_subject(t) for t in found]
    values = {t.strip("`\"'").lower() for t in found if t and _is_value(t)}
    slots: dict[str, set[str]] = {}
    for i, token in enumerate(found):
        if token and _is_value(token):
            near = words[max(0, i - 2) : i] + words[i + 1 : i + 3]
            slots.setdefault(token.strip("`\"'").lower(), set()).update(w for w in near if w)
    return (
        frozenset(w for w in words if w),
        frozenset(values),
        {v: frozenset(n) for v, n in slots.items()},
        tuple(t.lower() for t in found),
        words,
    )


def test_the_shared_pass_reads_every_text_as_the_readers_did_alone() -> None:
    rng = random.Random(11)
    texts = [" ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))) for _ in range(400)]
    for text in texts:
        subject, values = analyse(text)
        assert (subject, values, value_slots(text), tokens(text), subject_sequence(text)) == reference(text)
    assert any(value_slots(t) for t in texts) and any(analyse(t)[0] for t in texts)  # both were exercised
