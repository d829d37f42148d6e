"""Relevance feedback: the words the best first hits share are added to the query, at a lower weight.

A question and the memories that answer it often use different words ("what has Sam painted" against
"finished another landscape", "token validation" against "JWT middleware"). The top few hits of a
first ranking usually carry the words of the topic, so a term that at least two of them share is added
to the lexical query with ``weight`` times the share of those hits that have it (the query's own terms
keep 1.0), and the candidates' lexical scores are taken from the widened query: a memory the dense
search found that shares the topic's words but not the question's now has a lexical part. Classic
pseudo-relevance feedback (RM3) on our BM25 vectors; measured on LoCoMo dev conversations 0-3
(benchmarks/RESULTS.md). Pure functions: no index, no model.

The widened query scores the candidates only, by their ids, unless ``Weights.feedback_new`` asks for
new ones: then it searches the whole tenant as it did before 2026-12-07, that many new hits join, and
a candidate outside its top ``pool`` loses its lexical part. At a million memories that search took
5.3 ms against 2.6 for the rescoring (its terms are the top hits' words, with long posting lists), and
on LoCoMo the hits it added did not pay: rescoring alone gave R@10 80.9 against 80.4 on the tuned
conversations and 82.2 against 82.2 on the held-out one (RESULTS.md, sections
``quality_feedback_rescore`` and "Recall at a million memories", 2026-12-07).

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

__all__ = ["FEEDBACK_DOCS", "MIN_SHARED", "feedback_query", "widens"]

FEEDBACK_DOCS = 5  # the top hits whose words are read
MIN_SHARED = 2  # a word must be in at least this many of them: one hit's words are its own, not the topic's


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
