"""Redaction of one string: the rule order, and the two calls everything else builds on.

Why one ordered list: precise detectors run before loose ones, so ``export GITHUB_TOKEN=ghp_...``
is reported as ``github_token`` rather than as a generic assignment, and a value that is already
``[REDACTED:...]`` is never matched again, which makes ``redact_text`` idempotent.
"""

from __future__ import annotations

from codememory.redaction.context import CONTEXT_RULES, KEY_BLOCK_RULES
from codememory.redaction.rule import Rule, apply_rules
from codememory.redaction.tokens import TOKEN_KINDS, TOKEN_RULES

RULES: tuple[Rule, ...] = KEY_BLOCK_RULES + TOKEN_RULES + CONTEXT_RULES
KINDS: frozenset[str] = (
    TOKEN_KINDS
    | {rule.kind for rule in KEY_BLOCK_RULES + CONTEXT_RULES}
    | {"basic_auth", "authorization_header", "dotenv_assignment", "secret_field"}
)
"""Every ``<kind>`` that can appear in ``[REDACTED:<kind>]``."""

_SHORTEST_SECRET = 6


def redact_text(text: str) -> str:
    """Replace every secret found in ``text`` with ``[REDACTED:<kind>]``, keeping the rest."""
    if len(text) < _SHORTEST_SECRET:
        return text
    return apply_rules(RULES, text)[0]


def count_secrets(text: str) -> int:
    """How many secrets ``redact_text`` would replace in ``text``."""
    if len(text) < _SHORTEST_SECRET:
        return 0
    return apply_rules(RULES, text)[1]
