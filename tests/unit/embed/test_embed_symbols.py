from datetime import UTC, datetime

import pytest

from codememory.codesearch import symbol_document
from codememory.embed.symbols import VECTORS_PER_EVENT, symbol_jobs, symbols_embedded_events
from codememory.events import Envelope, Symbol, SymbolsEmbedded, SymbolsExtracted, new_envelope


def _symbol(i: int, kind: str = "function") -> Symbol:
    return Symbol(
        qualname=f"m.f{i}",
        name=f"f{i}",
        kind=kind,  # type: ignore[arg-type]
        start_line=i,
        end_line=i + 3,
        signature=f"def f{i}(x):",
        docstring=f"Compute thing number {i}.",
        excerpt=f"    return x + {i}",
    )


def _extracted(symbols: tuple[Symbol, ...]) -> Envelope:
    event = SymbolsExtracted(repo="r", path="m.py", content_hash="h", symbols=symbols)
    return new_envelope(event, event_id="e1", tenant="t", occurred_at=datetime(2026, 1, 1, tzinfo=UTC))


def test_every_dense_text_of_every_symbol_is_embedded_except_modules() -> None:
    symbols = (_symbol(0, "module"), _symbol(1), _symbol(2))
    jobs = symbol_jobs([_extracted(symbols)])
    texts = [t for job in jobs for t in job.texts]
    expected = [t for s in symbols[1:] for t in symbol_document(s, "m.py").dense_texts]
    assert texts == expected
    assert all(q != "m.f0" for job in jobs for q in job.qualnames)


def test_large_files_are_split_without_splitting_a_symbol() -> None:
    symbols = tuple(_symbol(i) for i in range(1, 100))
    jobs = symbol_jobs([_extracted(symbols)])
    assert len(jobs) > 1
    assert all(len(job.texts) <= VECTORS_PER_EVENT for job in jobs)
    seen: set[str] = set()
    for job in jobs:
        assert not (set(job.qualnames) & seen), "a symbol's vectors were split across events"
        seen |= set(job.qualnames)
    vectors = [[float(i)] for i in range(sum(len(j.texts) for j in jobs))]
    events = symbols_embedded_events(jobs, vectors, "model")
    assert len({e.event_id for e in events}) == len(events)
    payloads = [e.payload for e in events]
    assert all(isinstance(p, SymbolsEmbedded) and p.content_hash == "h" for p in payloads)
    again = symbols_embedded_events(symbol_jobs([_extracted(symbols)]), vectors, "model")
    assert [e.event_id for e in again] == [e.event_id for e in events]


def test_vectors_must_match_the_texts() -> None:
    jobs = symbol_jobs([_extracted((_symbol(1),))])
    with pytest.raises(ValueError):
        symbols_embedded_events(jobs, [[0.0]] * 7, "model")
