"""The code projection: LOG folded into the code graphs (one per tenant) and the code-search index.

Pure of NATS and gRPC. The gateway rebuilds it from LOG on every start (the graph lives in memory, the
design's "rebuilt from the log on start"; the code-search shard is rebuilt beside it), so both always
reflect the same prefix of LOG and its position needs no file. It is followed, waited on, rebuilt
and swapped by the same runner as the memory projection (``LiveProjection[CodeProjection]``), which
also isolates events it cannot apply: this class raises, the runner counts and parks them.

One known degradation is not poison: an event recorded before code facts refused repeated qualnames
(code search refuses it as input) is folded into the graph, and code search keeps what it had for
that file (logged). A failing index is: a vector of the wrong size is poison, an index that cannot be
reached is transient (the runner retries).

``prepared``: files RecordCode's intake workers made ready for code search ahead of the fold
(``codesearch.prepared``); a file not there is prepared here, the same way.
"""

from __future__ import annotations

import hashlib

import structlog

from codememory.codegraph import TenantGraphs
from codememory.codegraph.digest import graph_digest
from codememory.codesearch import CodeIndex, CodeIndexError, InvalidCodeInputError
from codememory.codesearch.prepared import PreparedFiles, PreparedSymbol
from codememory.events import Envelope, FileDeleted, SymbolsEmbedded, SymbolsExtracted
from codememory.projection.port import Decoded
from codememory.projection.position import InMemoryPosition
from codememory.vectorstore import IndexUnavailableError, VectorIndex

log = structlog.get_logger(__name__)


class CodeProjection(InMemoryPosition):
    def __init__(
        self,
        graphs: TenantGraphs,
        code_index: CodeIndex,
        *,
        shard: VectorIndex,
        generation: int = 0,
        prepared: PreparedFiles | None = None,
    ) -> None:
        super().__init__()
        self.graphs = graphs
        self.code_index = code_index
        same_encoder = prepared is not None and prepared.settings == code_index.encoder_settings
        self.prepared = prepared if same_encoder else None
        self.shard = shard  # the index under code_index: closed when a replay swaps this projection out
        self.generation = generation

    def apply_batch(self, decoded: Decoded) -> int:
        """Fold events in order; the position follows each one, so a failure leaves it before the culprit."""
        applied = 0
        for seq, envelope in decoded:
            if seq <= self.last_seq:
                continue
            self.graphs.apply(envelope, seq)
            self._index(envelope)
            self.last_seq = seq
            applied += 1
        return applied

    def _index(self, envelope: Envelope) -> None:
        """Code search's part; an index that is away is transient, any other index failure poison."""
        event, tenant = envelope.payload, envelope.tenant
        try:
            if isinstance(event, SymbolsExtracted):
                ready = self._prepared(envelope.event_id, event)
                self.code_index.upsert_file(tenant, event.repo, event.path, event.symbols, prepared=ready)
            elif isinstance(event, SymbolsEmbedded):
                self.code_index.set_vectors(tenant, event.repo, event.path, event.qualnames, event.vectors)
            elif isinstance(event, FileDeleted):
                self.code_index.remove_file(tenant, event.repo, event.path)
        except InvalidCodeInputError as exc:
            # e.g. an event recorded before codefacts refused repeated qualnames: the graph folded it,
            # code search keeps what it had for the file
            log.warning("code_index_skipped", repo=getattr(event, "repo", ""), reason=str(exc))
        except CodeIndexError as exc:
            if isinstance(exc.__cause__, IndexUnavailableError):
                raise IndexUnavailableError(str(exc)) from exc
            raise

    def _prepared(self, event_id: str, event: SymbolsExtracted) -> tuple[PreparedSymbol, ...] | None:
        if self.prepared is None:
            return None
        return self.prepared.take(event_id, event.path, len(event.symbols))

    def digest(self) -> str:
        """One digest over every tenant's graph (replay compares the rebuilt graphs to the live ones)."""
        parts = sorted(f"{g.tenant}:{graph_digest(g)}" for g in self.graphs)
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()


__all__ = ["CodeProjection"]
