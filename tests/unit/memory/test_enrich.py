"""A memory's lexical text: its date in words and its session's previous memory, fixed in LOG order."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from codememory.events import MemoryForgotten, MemoryRefined, MemoryScope, MemoryStored, new_envelope
from codememory.lexical import SparseEncoder, code_terms
from codememory.memory import (
    Enrichment,
    MemoryProjection,
    Position,
    date_words,
    indexed_text,
    memory_id_of,
    point_ids,
)
from codememory.memory.enrich import NO_ENRICHMENT
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()


def test_date_words_names_day_month_and_year() -> None:
    assert date_words(MAY_8) == "8 May 2023"
    assert date_words(0.0) == ""


def test_date_words_of_a_day_formatted_once_are_those_of_its_every_moment() -> None:
    # the day's words are kept by day; within a microsecond of midnight the time rounds to the next day
    midnight = datetime(2023, 5, 9, tzinfo=UTC).timestamp()
    moments = [MAY_8 + s for s in (0.0, 0.5, 3600.25)] + [midnight - 0.0000004, midnight - 0.01]
    moments += [midnight, midnight + 0.0000004, midnight + 86399.9999997]
    for at in moments:
        assert date_words(at) == datetime.fromtimestamp(at, UTC).strftime("%-d %B %Y"), at
    assert date_words(midnight - 0.0000004) == "9 May 2023"
    assert date_words(midnight + 86399.9999997) == "10 May 2023"


def test_indexed_text_adds_what_is_switched_on() -> None:
    payload = {"text": "yes, last week", "created_at": MAY_8, "context": "did you go to the concert?"}
    assert indexed_text(payload, Enrichment()) == "yes, last week\n8 May 2023\ndid you go to the concert?"
    assert indexed_text(payload, Enrichment(date=False, context_chars=6)) == "yes, last week\ndid yo"
    assert indexed_text(payload, NO_ENRICHMENT) == "yes, last week"


def test_a_negative_context_length_is_refused() -> None:
    with pytest.raises(ValueError, match="context_chars"):
        Enrichment(context_chars=-1)


def _stored(i: int, text: str, session: str = "s1") -> MemoryStored:
    return MemoryStored(
        memory_id=str(uuid.UUID(int=i)), text=text, scope=MemoryScope(session_id=session), created_at=""
    )


def _history() -> list[tuple[int, object]]:
    return _HISTORY


def _make_history() -> list[tuple[int, object]]:
    events = [
        _stored(1, "did you go to the concert?"),
        _stored(2, "unrelated", session="s2"),
        _stored(3, "yes, last week"),
        MemoryRefined(memory_id=str(uuid.UUID(int=3)), text="yes, last Friday"),
        _stored(4, "it was loud"),
        MemoryForgotten(memory_id=str(uuid.UUID(int=4))),
        _stored(5, "the band was great"),
    ]
    return [
        (i + 1, new_envelope(e, event_id=str(uuid.UUID(int=100 + i)), tenant="t"))  # type: ignore[arg-type]
        for i, e in enumerate(events)
    ]


def _projection(path: Path, enrichment: Enrichment | None = None) -> MemoryProjection:
    return MemoryProjection(EdgeVectorIndex(path, 8), SparseEncoder(), Position(None), enrichment)


def _context(projection: MemoryProjection, i: int) -> object:
    (point,) = projection.index.get(point_ids("t", [str(uuid.UUID(int=i))]))
    return point.payload["context"]


def test_a_memory_carries_the_previous_memory_of_its_session(tmp_path: Path) -> None:
    projection = _projection(tmp_path / "a")
    projection.apply_batch(_history())  # type: ignore[arg-type]
    assert _context(projection, 1) == ""
    assert _context(projection, 2) == ""  # another session
    assert _context(projection, 3) == "did you go to the concert?"
    assert _context(projection, 5) == "yes, last Friday"  # refined; the forgotten memory 4 is skipped


def test_a_memory_names_the_previous_memory_of_its_session(tmp_path: Path) -> None:
    projection = _projection(tmp_path / "a", NO_ENRICHMENT)  # the link is kept even without enrichment
    projection.apply_batch(_history())  # type: ignore[arg-type]
    points = {
        memory_id_of(p): p.payload for p in projection.index.scroll(IndexFilter(equals={"state": "active"}))
    }
    assert points[str(uuid.UUID(int=1))]["previous_id"] == ""
    assert points[str(uuid.UUID(int=3))]["previous_id"] == str(uuid.UUID(int=1))
    assert points[str(uuid.UUID(int=5))]["previous_id"] == str(uuid.UUID(int=3))


def test_the_context_is_searchable(tmp_path: Path) -> None:
    projection = _projection(tmp_path / "a")
    projection.apply_batch(_history())  # type: ignore[arg-type]
    encoder = SparseEncoder()
    hits = projection.index.search_sparse(encoder.encode_query(code_terms("concert")), IndexFilter(), 5)
    assert {h.id for h in hits} == set(point_ids("t", [str(uuid.UUID(int=1)), str(uuid.UUID(int=3))]))


def test_one_event_at_a_time_after_restarts_equals_one_batch(tmp_path: Path) -> None:
    batch = _projection(tmp_path / "batch")
    batch.apply_batch(_history())  # type: ignore[arg-type]
    index = EdgeVectorIndex(tmp_path / "steps", 8)
    for seq, envelope in _history():
        # a new projection each time: nothing remembered, the previous memory comes from the index
        MemoryProjection(index, SparseEncoder(), Position(None)).apply(seq, envelope)  # type: ignore[arg-type]
    assert index_digest(index, IndexFilter()) == index_digest(batch.index, IndexFilter())


def test_enrichment_off_indexes_the_bare_text(tmp_path: Path) -> None:
    projection = _projection(tmp_path / "a", NO_ENRICHMENT)
    projection.apply_batch(_history())  # type: ignore[arg-type]
    assert _context(projection, 3) == ""
    hits = projection.index.search_sparse(
        SparseEncoder().encode_query(code_terms("concert")), IndexFilter(), 5
    )
    assert [h.id for h in hits] == point_ids("t", [str(uuid.UUID(int=1))])


_HISTORY = _make_history()
