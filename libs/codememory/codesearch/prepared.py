"""A file's symbols made ready for the code-search index, anywhere: the fold, or a worker before it.

Why: the code projection folds LOG in one thread under the gateway's GIL, and for each symbol it
built the search documents (``symbol_document``: identifier splitting, ``code_terms``), the BM25
vector, the point ids and the packed payload string: about a quarter of indexing Django end to end.
None of that depends on the index or on other files, only on the symbol, its path, the tenant, the
repository and the BM25 settings. So RecordCode's intake workers, which already decode and redact
every fact in parallel processes, prepare each file too (``prepare_symbols``), and hand it to the
fold through ``PreparedFiles``, keyed by the event's id. The fold takes what is there and prepares
the rest itself with the same function, so a rebuilt index (replay, another gateway replica) is the
same as one fed by the workers.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import msgspec

from codememory.codesearch.documents import REPRESENTATIONS, symbol_document
from codememory.codesearch.payload import pack_described
from codememory.events import Symbol, deterministic_id
from codememory.lexical import SparseEncoder, SparseVec

__all__ = [
    "MAX_PREPARED_FILES",
    "EncoderSettings",
    "PreparedFiles",
    "PreparedSymbol",
    "encoder_settings",
    "point_id",
    "prepare_symbols",
]

MAX_PREPARED_FILES = 20_000  # files held for the fold; beyond, the oldest go (the fold prepares them)
EncoderSettings = tuple[float, float, float, str]  # BM25 (k, b, avg_len, language)


class PreparedSymbol(msgspec.Struct, frozen=True, array_like=True):
    """One symbol as the index stores it: a point per dense text (``ids[i]``, its packed payload
    string ``described[i]``), the first one carrying the BM25 vector of the lexical text."""

    ids: tuple[str, ...]
    described: tuple[str, ...]
    sparse: SparseVec


def encoder_settings(encoder: SparseEncoder) -> EncoderSettings:
    return (encoder.k, encoder.b, encoder.avg_len, encoder.language)


def point_id(tenant: str, repo: str, qualname: str, rep: str) -> str:
    return deterministic_id("code", tenant, repo, qualname, rep)


def prepare_symbols(
    tenant: str, repo: str, path: str, symbols: Sequence[Symbol], encoder: SparseEncoder
) -> tuple[PreparedSymbol, ...]:
    """Each symbol of ``path`` ready for ``CodeIndex.upsert_file`` (in the same order)."""
    prepared = []
    for symbol in symbols:
        doc = symbol_document(symbol, path)
        reps = REPRESENTATIONS[: len(doc.dense_texts)]
        prepared.append(
            PreparedSymbol(
                ids=tuple(point_id(tenant, repo, symbol.qualname, rep) for rep in reps),
                described=tuple(pack_described(symbol, text) for text in doc.dense_texts),
                sparse=encoder.encode_document(doc.lexical_text),
            )
        )
    return tuple(prepared)


class PreparedFiles:
    """Files prepared ahead of the fold, by event id: put by the intake, taken (once) by the fold.

    Bounded (``limit`` files, the oldest dropped first): an entry whose event never reaches the fold
    (a stream refused at append) must not stay forever. Safe across threads (the intake puts on the
    event loop, the fold takes in its own thread). ``settings`` are the BM25 settings the vectors were
    made with; a fold whose encoder differs must not take them (``CodeProjection`` checks)."""

    def __init__(self, encoder: SparseEncoder, *, limit: int = MAX_PREPARED_FILES) -> None:
        self.settings = encoder_settings(encoder)
        self._limit = limit
        self._files: dict[str, tuple[str, tuple[PreparedSymbol, ...]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._files)

    def put(self, event_id: str, path: str, prepared: tuple[PreparedSymbol, ...]) -> None:
        with self._lock:
            self._files[event_id] = (path, prepared)
            while len(self._files) > self._limit:
                del self._files[next(iter(self._files))]

    def take(self, event_id: str, path: str, symbols: int) -> tuple[PreparedSymbol, ...] | None:
        """What was prepared for the event, if it is for ``path`` and its ``symbols`` symbols."""
        with self._lock:
            found = self._files.pop(event_id, None)
        if found is None or found[0] != path or len(found[1]) != symbols:
            return None
        return found[1]
