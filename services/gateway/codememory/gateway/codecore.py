"""What the CodeService does, without gRPC: record code facts, answer graph queries, search code.

Facts are decoded, validated and redacted here (``codememory.codefacts``), appended to LOG once the
whole stream is valid (all or nothing), and the call returns once the code projection applied them
(read-your-writes, like a stored memory). Graph
queries read the caller's own tenant graph only, through ``codegraph.queries`` (never its lock or
dicts): tenants never see each other's code.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime

from codememory.codefacts import InvalidCodeFactError, decode_fact, fact_envelope, redact_fact
from codememory.codegraph import CodeGraph, queries
from codememory.codegraph.centrality import Centrality
from codememory.codegraph.relevance import GraphRelevance
from codememory.codesearch import CodeHit
from codememory.codesearch.prepared import PreparedFiles
from codememory.embedding import Embedder
from codememory.events import Envelope, EventLog
from codememory.gateway.errors import InvalidArgument, NotReady
from codememory.projection import CodeProjection, LiveProjection
from codememory.recall import RecallHit
from codememory.recall.codeaware import CodeAwareHit, CodeWeights, rerank

_BATCH = 256
MAX_STREAM_BYTES = 512 * 1024 * 1024  # one RecordCode stream, held until all of it is valid
MAX_SEARCH = 200


class CodeCore:
    def __init__(
        self,
        live: LiveProjection[CodeProjection],
        event_log: EventLog,
        embedder: Embedder,
        *,
        clean_text: Callable[[str], str],
        write_wait_s: float = 30.0,
        code_weights: CodeWeights | None = None,
        prepared: PreparedFiles | None = None,
    ) -> None:
        self.live = live
        self.prepared = prepared  # files RecordCode's intake made ready for the code projection's fold
        self._log = event_log
        self._embedder = embedder
        self._clean = clean_text
        self._write_wait_s = write_wait_s
        self._centrality: dict[str, tuple[CodeGraph, Centrality]] = {}
        self._centrality_lock = threading.Lock()
        self._code_weights = code_weights or CodeWeights()

    def graph(self, tenant: str) -> CodeGraph:
        return self.live.projection.graphs.graph(tenant)

    def centrality(self, tenant: str) -> Centrality:
        """The tenant's centrality, bound to its current graph (a replay swaps graphs in)."""
        graph = self.graph(tenant)
        with self._centrality_lock:  # the event loop and the refresher thread both get here
            found = self._centrality.get(tenant)
            if found is None or found[0] is not graph:
                found = self._centrality[tenant] = (graph, Centrality(graph))
            return found[1]

    def relevance(self, tenant: str) -> GraphRelevance:
        return GraphRelevance(self.graph(tenant), self.centrality(tenant))

    def rank(
        self, tenant: str, hits: Sequence[RecallHit], working_set: Sequence[str], query: str = ""
    ) -> list[CodeAwareHit]:
        """Memory hits re-ranked by their code: proximity to the working set, the working-set symbols
        the query names, centrality, suspicion.

        Called in the recall's worker thread, never on the event loop.
        """
        if not hits:
            return []
        return rerank(hits, self.relevance(tenant), working_set, self._code_weights, query)

    def refresh_centrality(self) -> int:
        """Recompute centrality of every graph that changed (a worker thread calls this, never a query)."""
        return sum(self.centrality(g.tenant).refresh_if_dirty() for g in self.live.projection.graphs)

    async def record(self, tenant: str, facts: AsyncIterator[bytes]) -> tuple[int, int]:
        """Append every fact of the stream; (how many, last LOG sequence) once all are applied.

        The whole stream is read and validated before anything is appended, so one bad fact, even the
        last, records nothing. Until then it is held as the client's bytes (more compact than decoded
        facts; each is decoded again to be appended), at most ``MAX_STREAM_BYTES``: a larger stream is
        refused, and the client sends its facts in several streams.
        """
        observed_at = datetime.now(UTC)
        valid: list[bytes] = []
        size = 0
        async for data in facts:
            size += len(data)
            if size > MAX_STREAM_BYTES:
                raise InvalidArgument(
                    f"the stream holds over {MAX_STREAM_BYTES} bytes of facts: send them in several streams"
                )
            try:
                decode_fact(data)
            except InvalidCodeFactError as exc:
                raise InvalidArgument(f"fact {len(valid) + 1}: {exc} (nothing was recorded)") from exc
            valid.append(data)
        last_seq = 0
        for start in range(0, len(valid), _BATCH):
            batch = [
                fact_envelope(
                    redact_fact(decode_fact(data), self._clean), tenant=tenant, observed_at=observed_at
                )
                for data in valid[start : start + _BATCH]
            ]
            last_seq = max(last_seq, await self._append(batch))
        if last_seq and not await self.live.wait_for(last_seq, self._write_wait_s):
            raise NotReady(f"facts appended up to {last_seq} but not yet applied")
        return len(valid), last_seq

    async def _append(self, envelopes: list[Envelope]) -> int:
        appended = await self._log.append(envelopes)
        return max(a.seq for a in appended)

    def indexed_files(self, tenant: str, repo: str) -> dict[str, str]:
        return queries.indexed_files(self.graph(tenant), repo)

    def last_commit(self, tenant: str, repo: str) -> str:
        return queries.last_commit(self.graph(tenant), repo)

    async def search(
        self, tenant: str, query: str, *, limit: int, repo: str = "", path_prefix: str = ""
    ) -> tuple[list[CodeHit], float]:
        if not query.strip():
            raise InvalidArgument("query is empty")
        if not 1 <= limit <= MAX_SEARCH:
            raise InvalidArgument(f"limit must be between 1 and {MAX_SEARCH}")
        started = time.perf_counter()

        def run(projection: CodeProjection) -> list[CodeHit]:
            vector = self._embedder.embed([query])[0]
            return projection.code_index.search(
                tenant, query, vector, limit=limit, repo=repo or None, path_prefix=path_prefix or None
            )

        hits = await self.live.read_held(run)  # a replay closes the shard it replaced after this read
        return hits, (time.perf_counter() - started) * 1000
