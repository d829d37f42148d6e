"""Recall: hybrid ranking of memories and the session context built from it."""

from codememory.recall.context import ContextRequest, SessionContext, build_context, estimate_tokens
from codememory.recall.query import RecallQuery, query_filter
from codememory.recall.recaller import Recaller, RecallHit
from codememory.recall.scoring import (
    Candidate,
    ScopeHint,
    ScoreParts,
    Weights,
    parse_weights,
    scope_match,
    score,
)

__all__ = [
    "Candidate",
    "ContextRequest",
    "RecallHit",
    "RecallQuery",
    "Recaller",
    "ScopeHint",
    "ScoreParts",
    "SessionContext",
    "Weights",
    "build_context",
    "estimate_tokens",
    "parse_weights",
    "query_filter",
    "scope_match",
    "score",
]
