"""Code search quality: BM25 alone, dense alone and the hybrid fusion, through ``CodeIndex``.

Two sets, one fusion configuration (``FusionConfig()``, the defaults):

- CoSQA dev-500 (../shared/data/cosqa): 500 real web queries, each with its gold function among 6,267.
- docstring -> function over the wheels of flask, requests and httpx (``pip download <pkg> --no-deps``,
  unpacked under ``--src``): the query is a function's first docstring line, the corpus every function
  of the package with its docstring removed (so the answer is not in the text). Functions documented
  alike answer the same query, which is asked once (any of them counts).

Functions become ``Symbol`` values with Python's ``ast`` (the benchmark's own small extractor), then
``symbol_document`` texts, MiniLM vectors (cached in ``--cache`` by text hash, produced by this script's
``embed_all``), and go into a ``CodeIndex`` on a real Qdrant Edge shard in a temp dir. The three methods
are the same index searched three ways. MRR and R@10 over all queries, search latency p50.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_codesearch.py --src /tmp/cs/src
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import pickle
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, percentile, write_section

from codememory.codesearch import CodeIndex, FusionConfig, SearchMode, open_code_index, symbol_document
from codememory.embedding import load_default_embedder
from codememory.events import Symbol
from shared_data import SHARED_DATA

COSQA = SHARED_DATA / "cosqa"
PACKAGES = ("flask", "requests", "httpx")
TENANT = "bench"
EXCERPT_LINES = 40


@dataclass(frozen=True)
class FileSymbols:
    path: str
    symbols: tuple[Symbol, ...]


@dataclass(frozen=True)
class Corpus:
    repo: str
    files: tuple[FileSymbols, ...]
    queries: tuple[tuple[str, frozenset[str]], ...]  # (query text, the qualnames that answer it)


def _signature(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    start = node.lineno - 1
    end = node.body[0].lineno - 1 if node.body else start + 1
    text = "\n".join(lines[start : max(end, start + 1)]).strip()
    head = text.split("):", 1)[0] + "):" if "):" in text else text.split("\n", 1)[0]
    return " ".join(head.split())


def _excerpt(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef, drop_docstring: bool) -> str:
    body = node.body
    first = body[0] if body else None
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    if drop_docstring and is_doc and isinstance(first.value.value, str):  # type: ignore[union-attr]
        body = body[1:]
    if not body:
        return ""
    start = body[0].lineno - 1
    end = min(node.end_lineno or start + 1, start + EXCERPT_LINES)
    return "\n".join(lines[start:end])


def python_symbols(source: str, module: str, *, drop_docstrings: bool) -> list[Symbol]:
    """Every function and method of ``source`` (docstring text removed when ``drop_docstrings``)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[Symbol] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qual = f"{prefix}.{child.name}"
                taken = sum(1 for s in found if s.qualname == qual or s.qualname.startswith(qual + "#"))
                if taken:  # a redefinition (overload, property setter): its own symbol, as the extractor does
                    qual = f"{qual}#{taken + 1}"
                found.append(
                    Symbol(
                        qualname=qual,
                        name=child.name,
                        kind="method" if in_class else "function",
                        start_line=child.lineno,
                        end_line=child.end_lineno or child.lineno,
                        signature=_signature(lines, child),
                        docstring="" if drop_docstrings else (ast.get_docstring(child) or ""),
                        excerpt=_excerpt(lines, child, drop_docstrings),
                    )
                )
                visit(child, qual, False)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}", True)

    visit(tree, module, False)
    return found


def cosqa_corpus() -> Corpus:
    code_to_idx: dict[str, int] = json.loads((COSQA / "code_idx_map.txt").read_text())
    files, gold_of = [], {}
    for code, idx in code_to_idx.items():
        try:
            symbols = python_symbols(code, f"f{idx}", drop_docstrings=False)
        except SyntaxError:
            symbols = []
        if not symbols:  # not parseable as Python 3: index the text as written
            first = code.split("\n", 1)[0]
            symbols = [
                Symbol(qualname=f"f{idx}.code", name="code", kind="function", start_line=1,
                       end_line=code.count("\n") + 1, signature=first, excerpt=code)
            ]  # fmt: skip
        top = symbols[0]  # the corpus entry is one function: nested helpers belong to it
        files.append(FileSymbols(path=f"f{idx}.py", symbols=(top,)))
        gold_of[idx] = top.qualname
    queries = []
    for item in json.loads((COSQA / "cosqa-retrieval-dev-500.json").read_text()):
        queries.append((item["doc"], frozenset({gold_of[item["retrieval_idx"]]})))
    return Corpus(repo="cosqa", files=tuple(files), queries=tuple(queries))


def package_corpus(src: Path, package: str) -> Corpus:
    """Every function of the package, docstrings removed; a query per distinct docstring first line.

    Functions documented alike (a sync method and its async twin, ``get`` and ``post`` wrappers) share a
    first line: each of them answers that query, and it is asked once.
    """
    root = src / package
    files = []
    answers: dict[str, set[str]] = {}
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(src).as_posix()
        module = rel.removesuffix(".py").replace("/", ".")
        source = file.read_text(encoding="utf-8")
        with_doc = python_symbols(source, module, drop_docstrings=False)
        without = python_symbols(source, module, drop_docstrings=True)
        files.append(FileSymbols(path=rel, symbols=tuple(without)))
        for sym in with_doc:
            first = sym.docstring.strip().split("\n", 1)[0].strip()
            if first:
                answers.setdefault(first, set()).add(sym.qualname)
    queries = tuple((text, frozenset(golds)) for text, golds in answers.items())
    return Corpus(repo=package, files=tuple(files), queries=queries)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def embed_all(texts: Sequence[str], cache_path: Path | None) -> dict[str, np.ndarray]:
    """MiniLM vectors of ``texts`` by text hash; the missing ones are embedded and the cache updated."""
    cache: dict[str, np.ndarray] = {}
    if cache_path is not None and cache_path.exists():
        cache = pickle.loads(cache_path.read_bytes())
    missing = list(dict.fromkeys(t for t in texts if _key(t) not in cache))
    if missing:
        embedder = load_default_embedder()
        started = time.perf_counter()
        for i in range(0, len(missing), 512):
            chunk = missing[i : i + 512]
            for text, vec in zip(chunk, embedder.embed(chunk), strict=True):
                cache[_key(text)] = np.asarray(vec, dtype=np.float32)
            print(f"  embedded {i + len(chunk)}/{len(missing)}", file=sys.stderr, flush=True)
        took = time.perf_counter() - started
        print(f"  embedding: {len(missing)} texts in {took:.0f} s", file=sys.stderr, flush=True)
        if cache_path is not None:
            cache_path.write_bytes(pickle.dumps(cache))
    return {_key(t): cache[_key(t)] for t in texts}


MODES: tuple[SearchMode, ...] = ("lexical", "dense:summary", "dense:code", "dense", "hybrid")
LABELS = {
    "lexical": "BM25 (code terms)",
    "dense:summary": "dense, summary text",
    "dense:code": "dense, code text",
    "dense": "dense, max-sim of both",
    "hybrid": "hybrid fusion",
}


@dataclass
class Scores:
    rr: list[float]
    hit10: list[float]
    took_ms: list[float]

    @property
    def mrr(self) -> float:
        return 100 * sum(self.rr) / len(self.rr)

    @property
    def r10(self) -> float:
        return 100 * sum(self.hit10) / len(self.hit10)


def run_corpus(
    corpus: Corpus, shard_dir: Path, cache: Path | None, config: FusionConfig
) -> dict[str, Scores]:
    """Index the corpus in a fresh CodeIndex, then run every query in every mode."""
    docs = {(f.path, s.qualname): symbol_document(s, f.path) for f in corpus.files for s in f.symbols}
    texts = [t for d in docs.values() for t in d.dense_texts] + [q for q, _ in corpus.queries]
    vectors = embed_all(texts, cache)
    shard = open_code_index(shard_dir, 384)
    index = CodeIndex(shard, config=config)
    started = time.perf_counter()
    for f in corpus.files:
        given = {
            s.qualname: [vectors[_key(t)].tolist() for t in docs[(f.path, s.qualname)].dense_texts]
            for s in f.symbols
        }
        index.upsert_file(TENANT, corpus.repo, f.path, f.symbols, given)
    shard.optimize()
    print(
        f"  {corpus.repo}: indexed {len(docs)} symbols in {time.perf_counter() - started:.1f} s", flush=True
    )
    out = {m: Scores([], [], []) for m in MODES}
    for query, golds in corpus.queries:
        qvec = vectors[_key(query)].tolist()
        for mode in MODES:
            t0 = time.perf_counter()
            hits = index.search(TENANT, query, qvec, limit=100, repo=corpus.repo, mode=mode)
            out[mode].took_ms.append(1000 * (time.perf_counter() - t0))
            ranked = [h.qualname for h in hits]
            rank = next((i for i, q in enumerate(ranked, start=1) if q in golds), 0)
            out[mode].rr.append(1 / rank if rank else 0.0)
            out[mode].hit10.append(1.0 if 0 < rank <= 10 else 0.0)
    shard.close()
    return out


def _table(results: dict[str, dict[str, Scores]]) -> str:
    names = list(results)
    head = "| method | " + " | ".join(f"{n} MRR | {n} R@10" for n in names) + " |"
    rule = "|---|" + "---|---|" * len(names)
    rows = [head, rule]
    for mode in MODES:
        cells = " | ".join(f"{results[n][mode].mrr:.1f} | {results[n][mode].r10:.1f}" for n in names)
        rows.append(f"| {LABELS[mode]} | {cells} |")
    gains = []
    for n in names:
        best_single = max(results[n][m].mrr for m in MODES if m != "hybrid")
        gain = 100 * (results[n]["hybrid"].mrr / best_single - 1)
        gains.append(f"{gain:+.1f}% | ")
    rows.append("| hybrid vs best single (MRR, relative) | " + "".join(f"{g} |" for g in gains) + "")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--src", type=Path, default=Path("/tmp/cs/src"), help="unpacked package wheels")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cs/emb.pkl"), help="vector cache ('' off)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    parser.add_argument("--packages", nargs="+", default=list(PACKAGES), help="docstring sets to run")
    parser.add_argument("--no-cosqa", action="store_true", help="docstring sets only")
    args = parser.parse_args()
    cache = args.cache if str(args.cache) else None
    config = FusionConfig()
    corpora = ([] if args.no_cosqa else [cosqa_corpus()]) + [
        package_corpus(args.src, p) for p in args.packages
    ]
    results: dict[str, dict[str, Scores]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_codesearch_") as tmp:
        for corpus in corpora:
            results[corpus.repo] = run_corpus(corpus, Path(tmp) / corpus.repo, cache, config)
    table = _table(results)
    latency = {m: median([t for r in results.values() for t in r[m].took_ms]) for m in MODES}
    p95 = percentile([t for r in results.values() for t in r["hybrid"].took_ms], 95)
    sizes = ", ".join(
        f"{c.repo} {sum(len(f.symbols) for f in c.files)} symbols / {len(c.queries)} queries" for c in corpora
    )
    lat = ", ".join(f"{LABELS[m]} {latency[m]:.1f} ms" for m in MODES)
    body = f"""Sets: {sizes}. One configuration for all: `{config}`.

{table}

Search latency p50 (limit 100, Qdrant Edge in-process, query already embedded):
{lat}; hybrid p95 {p95:.1f} ms.
Machine shared with other engineers' jobs while measured: timings are noisy, quality figures are not.
"""
    print(body)
    if not args.no_write:
        write_section(
            "bench_codesearch", "Code search: BM25, dense and hybrid fusion (CoSQA, docstring sets)", body
        )


if __name__ == "__main__":
    main()
