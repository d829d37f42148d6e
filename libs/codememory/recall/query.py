"""What a caller can ask of recall, and how that becomes an index filter.

The tenant is not something a caller chooses: it comes from verified credentials and is always part of
the filter. Forgotten memories never match. Superseded ones do (recall ranks them below what replaced
them and shows them as history); deprecated ones only when asked for; restatements merged into a
canonical memory and archived ones only when history is asked for.
"""

from __future__ import annotations

import msgspec

from codememory.vectorstore import IndexFilter


class RecallQuery(msgspec.Struct, frozen=True, kw_only=True):
    tenant: str
    text: str
    limit: int = 10
    repo: str = ""
    branch: str = ""
    user: str = ""
    session_id: str = ""
    types: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    since: float = 0.0
    until: float = 0.0
    include_deprecated: bool = False
    include_history: bool = False  # merged restatements and archived memories too
    cwd: str = ""
    feedback: bool = True  # widen the lexical query by the top hits' shared words (``recall.feedback``)
    # at most ``Weights.topic_cap`` hits of a topic in the top results (``recall.crowding``); off for a
    # budgeted pack like session context, where the budget decides how much of a topic fits
    crowd: bool = True


def query_filter(query: RecallQuery) -> IndexFilter:
    equals: dict[str, str | int | bool] = {"tenant": query.tenant}
    for field in ("repo", "branch", "user", "session_id"):
        value = getattr(query, field)
        if value:
            equals[field] = value
    states = ["active", "superseded"]
    if query.include_deprecated or query.include_history:
        states.append("deprecated")
    if query.include_history:
        states += ["merged", "archived"]
    any_of: dict[str, list[str]] = {"state": states}
    if query.types:
        any_of["type"] = list(query.types)
    if query.paths:
        any_of["paths"] = list(query.paths)
    ranges: dict[str, tuple[float | None, float | None]] = {}
    if query.since or query.until:
        ranges["created_at"] = (query.since or None, query.until or None)
    return IndexFilter(equals=equals, any_of=any_of, ranges=ranges)
