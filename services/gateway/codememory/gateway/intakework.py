"""What RecordCode's intake worker processes run: decode, check and redact a chunk of facts, and
make each file ready for code search.

Why a module of its own: a spawned worker imports the module of the function it runs, and
``codeintake`` imports the gateway's ``CodeCore`` (recall, numpy, the graph queries), about 0.4 s of
CPU per worker at the start of every index, on cores the client's parser needs then. This module
imports only what the work needs.
"""

from __future__ import annotations

from datetime import datetime

from codememory.codefacts import InvalidCodeFactError, decode_fact, fact_envelope, redact_fact
from codememory.codesearch.prepared import EncoderSettings, PreparedSymbol, prepare_symbols
from codememory.events import Envelope, SymbolsExtracted
from codememory.lexical import SparseEncoder
from codememory.redaction import clean_text

__all__ = ["FactRefused", "Prepared", "prepare_chunk", "worker_started"]


class FactRefused(InvalidCodeFactError):
    """A fact of a chunk was refused: ``index`` is its place in the chunk."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


Prepared = tuple[PreparedSymbol, ...] | None  # a file ready for code search, or None (not a file)
_encoders: dict[EncoderSettings, SparseEncoder] = {}


def _prepared(envelope: Envelope, settings: EncoderSettings | None) -> Prepared:
    """The file's symbols ready for code search; None when there is nothing to prepare or it cannot be
    prepared (the fold then prepares it, and refuses it there if it must, as without workers)."""
    fact = envelope.payload
    if settings is None or not isinstance(fact, SymbolsExtracted) or not fact.symbols:
        return None
    encoder = _encoders.get(settings)
    if encoder is None:
        k, b, avg_len, language = settings
        encoder = _encoders[settings] = SparseEncoder(k=k, b=b, avg_len=avg_len, language=language)
    try:
        return prepare_symbols(envelope.tenant, fact.repo, fact.path, fact.symbols, encoder)
    except Exception:  # an optimisation only: the fold prepares the file again, and reports
        return None


def prepare_chunk(
    datas: list[bytes], tenant: str, observed_at: datetime, settings: EncoderSettings | None = None
) -> list[tuple[Envelope, Prepared]]:
    """Decode, check and redact each fact; the envelopes to append, each with its file made ready for
    code search when ``settings`` (BM25) are given (runs in a worker process)."""
    envelopes = []
    for index, data in enumerate(datas):
        try:
            fact = decode_fact(data)
        except InvalidCodeFactError as exc:
            raise FactRefused(index, str(exc)) from None
        envelope = fact_envelope(redact_fact(fact, clean_text), tenant=tenant, observed_at=observed_at)
        envelopes.append((envelope, _prepared(envelope, settings)))
    return envelopes


def worker_started() -> bool:
    """Runs in a worker once: starting the process and importing this module is the point."""
    return True
