"""``conflicting_values`` decided per side equals its definition over every pair of values: recall asks
it of every pair of alike hits, so it was made cheaper, and this pins that it still answers the same."""

from __future__ import annotations

import itertools
import random

from codememory.memory.statements import conflicting_values
from codememory.memory.terms import is_number, named_words, number_kind, value_slots

WORDS = ["indent", "spaces", "tracking", "uri", "port", "user", "card", "orders", "timeout", "retry"]
VALUES = ["4", "2", "8080", "mlflow.internal", "wandb.internal", "UserCard.tsx", "user-card.tsx",
          "stg_shopify_orders", "stg__shopify__orders", "zodResolver", "`onChange`", "v1.2",
          "ops@acme.io", "intro.mp4", "v2.mp4", "python3.11", "argon2id", "sha256", "sha1",
          "3.12"]  # fmt: skip


def pairwise(a: str, b: str) -> bool:
    """The definition: some value only ``a`` states and some only ``b`` states are both numbers (not
    file names: ``is_number``) of one kind (or one a plain number: ``number_kind``), stand by a common
    subject word, or are made of a common word."""
    slots_a, slots_b = value_slots(a), value_slots(b)
    only_a = [(v, near) for v, near in slots_a.items() if v not in slots_b]
    only_b = [(v, near) for v, near in slots_b.items() if v not in slots_a]
    for (value_a, near_a), (value_b, near_b) in itertools.product(only_a, only_b):
        if near_a & near_b or named_words(value_a) & named_words(value_b):
            return True
        if is_number(value_a) and is_number(value_b):
            kinds = {number_kind(value_a), number_kind(value_b)}
            if len(kinds) == 1 or "" in kinds:
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
