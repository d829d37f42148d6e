"""Deterministic ids: the same input always names the same event, point or memory.

A redelivered hook or a retried publish then overwrites instead of duplicating.
"""

from __future__ import annotations

import uuid

_NAMESPACE = uuid.UUID("6b7d2f3e-4c1a-5e8b-9a0d-2f1e3c4b5a69")


def deterministic_id(*parts: str) -> str:
    """A UUID5 of the parts, joined unambiguously."""
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))
