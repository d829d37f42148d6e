"""Which symbols in a batch of LOG events need vectors, and the ``SymbolsEmbedded`` events for them.

Code search embeds each symbol's dense texts (a summary, then a code excerpt: see
``codememory.codesearch.documents``), so a symbol can have more than one vector; the event lists the
qualname once per vector, in order. One event per file and content hash, with a deterministic id, so a
redelivered ``SymbolsExtracted`` appends nothing new. Module symbols are not embedded: their text is
the file itself, which the file's other symbols already cover.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codememory.codesearch import symbol_document
from codememory.events import Envelope, SymbolsEmbedded, SymbolsExtracted, deterministic_id, new_envelope

MAX_SYMBOLS_PER_FILE = 2000  # a generated file with more is searchable lexically only
VECTORS_PER_EVENT = 64  # about 250 KB of JSON: well under the 1 MB message limit


@dataclass(frozen=True)
class SymbolJob:
    """Up to ``VECTORS_PER_EVENT`` texts of one file; a symbol's texts are never split across jobs."""

    source: Envelope
    part: int
    qualnames: tuple[str, ...]
    texts: tuple[str, ...]


def symbol_jobs(envelopes: Sequence[Envelope]) -> list[SymbolJob]:
    jobs: list[SymbolJob] = []
    for envelope in envelopes:
        event = envelope.payload
        if not isinstance(event, SymbolsExtracted) or not event.symbols:
            continue
        qualnames: list[str] = []
        texts: list[str] = []
        seen: set[str] = set()
        for symbol in event.symbols[:MAX_SYMBOLS_PER_FILE]:
            if symbol.kind == "module" or symbol.qualname in seen:
                continue
            seen.add(symbol.qualname)
            dense = symbol_document(symbol, event.path).dense_texts
            if texts and len(texts) + len(dense) > VECTORS_PER_EVENT:
                jobs.append(SymbolJob(envelope, len(jobs), tuple(qualnames), tuple(texts)))
                qualnames, texts = [], []
            qualnames += [symbol.qualname] * len(dense)
            texts += dense
        if texts:
            jobs.append(SymbolJob(envelope, len(jobs), tuple(qualnames), tuple(texts)))
    return jobs


def symbols_embedded_events(
    jobs: Sequence[SymbolJob], vectors: Sequence[Sequence[float]], model: str
) -> list[Envelope]:
    """``vectors`` are the jobs' texts' vectors, concatenated in job order."""
    events = []
    offset = 0
    for job in jobs:
        mine = vectors[offset : offset + len(job.texts)]
        offset += len(job.texts)
        source = job.source.payload
        assert isinstance(source, SymbolsExtracted)
        events.append(
            new_envelope(
                SymbolsEmbedded(
                    repo=source.repo,
                    path=source.path,
                    content_hash=source.content_hash,
                    model=model,
                    qualnames=job.qualnames,
                    vectors=tuple(tuple(v) for v in mine),
                ),
                event_id=deterministic_id(job.source.event_id, "symbols.embedded", model, str(job.part)),
                tenant=job.source.tenant,
                causation_id=job.source.event_id,
                correlation_id=job.source.correlation_id,
            )
        )
    if offset != len(vectors):
        raise ValueError(f"{len(vectors)} vectors for {offset} texts")
    return events
