"""``conflicting_values`` decided per side equals its definition over every pair of values: recall asks
it of every pair of alike hits, so it was made cheaper, and this pins that it still answers the same."""

from __future__ import annotations

import itertools
import random
import re

from codememory.memory.statements import conflicting_values
from codememory.memory.terms import is_number, named_words, rejected_values, value_slots

WORDS = ["indent", "spaces", "tracking", "uri", "port", "user", "card", "orders", "timeout", "retry", "never",
         "argon2", "argon2id", "src/user/card.ts", "src/orders"]  # fmt: skip
VALUES = ["4", "2", "8080", "mlflow.internal", "wandb.internal", "UserCard.tsx", "user-card.tsx",
          "stg_shopify_orders", "stg__shopify__orders", "zodResolver", "`onChange`", "v1.2",
          "ops@acme.io", "intro.mp4", "v2.mp4", "python3.11"]  # fmt: skip


def spelt(a: str, b: str) -> bool:
    """One name written more or less precisely: a word of letters and digits extending another."""
    short, long = sorted((a, b), key=len)
    word = re.compile(r"[a-z][a-z0-9]{3,}")
    return (
        short != long
        and bool(word.fullmatch(short))
        and bool(word.fullmatch(long))
        and long.startswith(short)
    )


def pairwise(a: str, b: str) -> bool:
    """The definition: some value only ``a`` sets and some only ``b`` sets (neither rejected, nor the
    other's name spelt out) are both numbers (not file names: ``is_number``), or, both paths or both
    not, stand by a common subject word or are made of a common word."""
    slots_a, slots_b = value_slots(a), value_slots(b)
    only_a = [(v, n) for v, n in slots_a.items() if v not in slots_b and v not in rejected_values(a)]
    only_b = [(v, n) for v, n in slots_b.items() if v not in slots_a and v not in rejected_values(b)]
    only_a = [(v, n) for v, n in only_a if not any(spelt(v, w) for w in slots_b)]
    only_b = [(v, n) for v, n in only_b if not any(spelt(v, w) for w in slots_a)]
    for (value_a, near_a), (value_b, near_b) in itertools.product(only_a, only_b):
        same_shape = ("/" in value_a) == ("/" in value_b)
        if same_shape and (near_a & near_b or named_words(value_a) & named_words(value_b)):
            return True
        if is_number(value_a) and is_number(value_b):
            return True
    return False


def test_conflicting_values_equals_its_pairwise_definition() -> None:
    rng = random.Random(7)
    texts = [
        " ".join(rng.choice(WORDS + VALUES + ["the", "with", "is"]) for _ in range(rng.randint(2, 9)))
        for _ in range(160)
    ]
    texts += ["indent with 4 spaces", "indent with 2 spaces", "tracking uri is mlflow.internal"]
    conflicts = 0
    for a, b in itertools.combinations(texts, 2):
        assert conflicting_values(a, b) == pairwise(a, b), (a, b)
        conflicts += pairwise(a, b)
    assert 0 < conflicts < len(texts) * (len(texts) - 1) // 2  # both answers were exercised
    assert conflicting_values("indent with 4 spaces", "indent with 2 spaces")
    assert not conflicting_values("a zod schema via zodResolver", "no validation by hand in onChange")
