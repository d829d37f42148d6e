"""What the lexical index sees of a memory: its text, plus the context that makes it findable.

A memory alone often does not name what it is about: a reply says "yes, last week", an edit says
"changed the retry loop" without the request that caused it. So the indexed (BM25) text of a memory is
its own text, the text of the memory just before it in the same session (what it answers or follows:
the prompt before an edit, the question before a reply), and its date in words ("8 May 2023"), so a
question that names a month or a year matches the memories of that time. Measured on LoCoMo dev
conversations 0-3, BM25 alone: R@10 65.7 plain, 67.5 with the date, 75.9 with date and previous memory.

The context is fixed when the memory is created, from LOG order only (the previous memory of the
session as of that event), and kept in the payload (``context``), so a rebuild produces the same index
and a later refinement of the memory re-encodes with the same context. Pure functions: no index.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["DEFAULT_ENRICHMENT", "NO_ENRICHMENT", "Enrichment", "date_words", "indexed_text"]


@dataclass(frozen=True, kw_only=True)
class Enrichment:
    """Which context goes into a memory's lexical text. Both on by default; ``NO_ENRICHMENT`` is neither."""

    previous: bool = True  # the previous memory of the same session
    date: bool = True  # the memory's date in words
    context_chars: int = 600  # at most this much of the previous memory

    def __post_init__(self) -> None:
        if self.context_chars < 0:
            raise ValueError(f"context_chars must be >= 0, got {self.context_chars}")


DEFAULT_ENRICHMENT = Enrichment()
NO_ENRICHMENT = Enrichment(previous=False, date=False)


def date_words(created_at: float) -> str:
    """``8 May 2023`` for an epoch time (UTC); empty for an unknown (zero or negative) time."""
    if created_at <= 0:
        return ""
    day = int(created_at // _DAY_S)
    if _NEAR_MIDNIGHT_S < created_at - day * _DAY_S < _DAY_S - _NEAR_MIDNIGHT_S:
        return _day_words(day)
    return datetime.fromtimestamp(created_at, UTC).strftime("%-d %B %Y")  # as it rounds


_DAY_S = 86400  # an epoch day in UTC (epoch time has no leap seconds)
_NEAR_MIDNIGHT_S = 0.001  # ``fromtimestamp`` rounds to microseconds: near midnight, ask it


@functools.lru_cache(maxsize=4096)  # a replay formats the same few days for thousands of memories
def _day_words(day: int) -> str:
    return datetime.fromtimestamp(day * _DAY_S, UTC).strftime("%-d %B %Y")


def indexed_text(payload: Mapping[str, object], enrichment: Enrichment) -> str:
    """The text a memory's sparse vector is encoded from: its text, date and stored context."""
    parts = [str(payload.get("text") or "")]
    created = payload.get("created_at")
    if enrichment.date and isinstance(created, int | float):
        parts.append(date_words(float(created)))
    context = payload.get("context")
    if enrichment.previous and isinstance(context, str):
        parts.append(context[: enrichment.context_chars])
    return "\n".join(p for p in parts if p)
