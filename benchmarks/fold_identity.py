"""Whether a change to the code projection's fold changes what it builds: digests to compare across codes.

Folds a repository's facts (redacted as the gateway appends them) into a fresh ``CodeProjection`` in
batches of 256, then a second pass that re-indexes every 7th of the first 600 files with a symbol
fewer and no docstrings and deletes every 50th (the update paths). Prints the fold's time and three
digests: the graph (``CodeProjection.digest``), every code-search point (id, payload, BM25 vector,
whether it has a dense vector) and the hits of 14 queries in lexical and hybrid mode. Run it with
each code on ``PYTHONPATH`` (e.g. a ``git archive`` of the commit before) and compare the digests;
``--prepared`` makes every file ready ahead, as RecordCode's intake workers do.

    .venv/bin/python benchmarks/fold_identity.py /tmp/django_src [--prepared]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from codememory.code.indexer import index_repository
from codememory.code.summary import IndexSummary
from codememory.codefacts import fact_envelope, redact_fact
from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex, open_code_index
from codememory.codesearch.prepared import PreparedFiles, prepare_symbols
from codememory.events import FileDeleted, SymbolsExtracted
from codememory.lexical import SparseEncoder
from codememory.projection import CodeProjection
from codememory.redaction import clean_text
from codememory.vectorstore import IndexFilter

QUERIES = (
    "queryset filter", "render template context", "csrf token middleware", "migration autodetector",
    "url resolver reverse", "get_object_or_404", "password hasher", "session store", "ModelAdmin",
    "cache backend", "form validation clean", "sql compiler", "signal receiver", "paginator page",
)  # fmt: skip


def _second_pass(found: list[Any]) -> list[SymbolsExtracted | FileDeleted]:
    again: list[SymbolsExtracted | FileDeleted] = []
    for i, fact in enumerate(found[:600]):
        if not isinstance(fact, SymbolsExtracted):
            continue
        if i % 7 == 0:
            fewer = tuple(
                msgspec.structs.replace(s, docstring="")
                for s in fact.symbols[: max(1, len(fact.symbols) - 1)]
            )
            again.append(msgspec.structs.replace(fact, content_hash=fact.content_hash + "x", symbols=fewer))
        elif i % 50 == 1:
            again.append(FileDeleted(repo=fact.repo, path=fact.path))
    return again


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path, nargs="?", default=Path("/tmp/django_src"))
    parser.add_argument("--prepared", action="store_true", help="files made ready ahead, as the intake does")
    args = parser.parse_args()
    found = list(index_repository(args.root, "bench-index", {}, workers=2, summary=IndexSummary()))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    facts = [redact_fact(f, clean_text) for f in found] + _second_pass(found)
    envelopes = [fact_envelope(f, tenant="t", observed_at=at) for f in facts]
    with tempfile.TemporaryDirectory() as tmp:
        shard = open_code_index(Path(tmp) / "code", 384)
        encoder = SparseEncoder()
        prepared = PreparedFiles(encoder) if args.prepared else None
        if prepared is not None:
            for e in envelopes:
                if isinstance(e.payload, SymbolsExtracted) and e.payload.symbols:
                    fact = e.payload
                    ready = prepare_symbols("t", fact.repo, fact.path, fact.symbols, encoder)
                    prepared.put(e.event_id, fact.path, ready)
        projection = CodeProjection(
            TenantGraphs(), CodeIndex(shard, encoder=encoder), shard=shard, prepared=prepared
        )
        numbered = list(enumerate(envelopes, start=1))
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(numbered), 256):
            projection.apply_batch(numbered[start : start + 256])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"fold: {len(envelopes)} events in {wall:.2f} s ({cpu:.2f} s CPU)")
        print(f"graph digest {projection.digest()[:16]}")
        points = hashlib.sha256()
        stored = sorted(shard.scroll(IndexFilter(), with_vectors=True), key=lambda p: p.id)
        for p in stored:
            sparse = p.sparse and [list(p.sparse.indices), [round(v, 6) for v in p.sparse.values]]
            row = [p.id, {k: p.payload[k] for k in sorted(p.payload)}, sparse, p.dense is not None]
            points.update(json.dumps(row).encode())
        print(f"code-search points {len(stored)}, digest {points.hexdigest()[:16]}")
        hits = hashlib.sha256()
        for query in QUERIES:
            for mode in ("lexical", "hybrid"):
                found_hits = projection.code_index.search("t", query, None, limit=10, mode=mode)
                rows = [
                    (h.qualname, h.path, h.kind, h.signature, h.docstring, h.start_line) for h in found_hits
                ]
                hits.update(json.dumps(rows).encode())
        print(f"search digest {hits.hexdigest()[:16]} ({len(QUERIES) * 2} searches)")
        shard.close()


if __name__ == "__main__":
    main()
