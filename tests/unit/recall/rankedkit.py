"""Ranked hits for the tests of recall's reordering passes (restatements, topic crowding)."""

from __future__ import annotations

import numpy as np

from codememory.recall.restated import unit_vectors
from codememory.recall.scoring import Candidate, ScoreParts


def hit(
    mid: str, text: str, total: float, *, kind: str = "prompt", state: str = "active", evidence: str = ""
) -> tuple[Candidate, ScoreParts]:
    payload: dict[str, object] = {"text": text, "type": kind, "state": state}
    if evidence:
        payload["metadata"] = {"evidence": evidence}
    parts = ScoreParts(dense=total, lexical=0.0, recency=0.0, importance=0.5, scope=0.0, total=total)
    return Candidate(memory_id=mid, payload=payload, dense=total, lexical=None), parts


def plane_vectors(**angles: float) -> dict[str, np.ndarray]:
    """Unit vectors in a plane: the cosine of two is the cosine of their angle difference."""
    return unit_vectors([(k, (float(np.cos(a)), float(np.sin(a)))) for k, a in angles.items()])


def order(ranked: list[tuple[Candidate, ScoreParts]]) -> list[str]:
    return [c.memory_id for c, _ in ranked]
