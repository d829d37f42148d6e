"""Relevance feedback: the words the best first hits share are added to the query, at a lower weight.

A question and the memories that answer it often use different words ("what has Sam painted" against
"finished another landscape", "token validation" against "JWT middleware"). The top few hits of a
first ranking usually carry the words of the topic, so a term that at least two of them share is added
to the lexical query with ``weight`` times the share of those hits that have it (the query's own terms
keep 1.0), and the lexical search is run again: memories on the same topic that share no word with the
question become candidates. Classic pseudo-relevance feedback (RM3) on our BM25 vectors; measured on
LoCoMo dev conversations 0-3 (benchmarks/RESULTS.md). Pure functions: no index, no model.

Feedback widens a lexical query that found something (``widens``). When no memory shares a word with
the question, the top hits are the dense search's alone, and lexical scores are normalised by the best
among the candidates: the widened search's best, made of added words only, would count as a full
lexical match, and a memory that merely shares the top hits' common words ("Grep 'RenewSubscription'"
for a question about polling an ADC) would outrank the dense answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from codememory.lexical import SparseVec

__all__ = ["FEEDBACK_DOCS", "FEEDBACK_NEW", "MIN_SHARED", "feedback_query", "widens"]

FEEDBACK_DOCS = 5  # the top hits whose words are read
MIN_SHARED = 2  # a word must be in at least this many of them: one hit's words are its own, not the topic's
# New candidates of the widened search that are read (payload, dense similarity), best first: reading
# costs ~30 us each and those further down did not rank (LoCoMo dev: the same recall as reading all).
FEEDBACK_NEW = 10


def feedback_query(
    query: SparseVec, documents: Sequence[SparseVec], weight: float, *, min_shared: int = MIN_SHARED
) -> SparseVec:
    """``query`` plus each term that ``min_shared`` or more ``documents`` contain, weighted
    ``weight * share``; the query itself when nothing qualifies (or ``weight`` is 0)."""
    if weight <= 0 or not documents:
        return query
    own = set(query.indices)
    shared = Counter(i for doc in documents for i in set(doc.indices) if i not in own)
    added = {i: weight * n / len(documents) for i, n in shared.items() if n >= min_shared}
    if not added:
        return query
    return SparseVec.from_dict({**query.as_dict(), **added})


def widens(lexical_scores: Iterable[float | None]) -> bool:
    """Whether feedback may widen a query whose candidates have these lexical scores: only when one
    of them shares a word with it (see the module's docstring)."""
    return any(score for score in lexical_scores)
