"""``CodeIndex``: the symbols of every file of every repository, searchable by meaning and by words.

A collection of its own (its own Qdrant Edge directory, see ``open_code_index``), never mixed with
memories. Each symbol is one point per dense text of its ``SymbolDocument`` (``summary``, then ``code``):
the summary point also carries the BM25 vector, so a lexical search sees each symbol once. Point ids are
``deterministic_id("code", tenant, repo, qualname, representation)``: re-indexing a file overwrites. The
payload holds tenant, repo, path (and its directory prefixes, for ``path_prefix``), qualname and
representation, and packed in one string (``DESCRIBED``) kind, signature, docstring opening, lines and a
digest of the text the vector was made from.

Every search is filtered by tenant: tenants never see each other's code. How a search reads the lists
and fuses them is ``search.CodeSearch``; ``mode`` gives the single-method rankings through the same
path, which is what the benchmark compares against.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codememory.codesearch.documents import REPRESENTATIONS
from codememory.codesearch.errors import CodeIndexError, InvalidCodeInputError
from codememory.codesearch.fusion import FusionConfig
from codememory.codesearch.payload import (
    CODE_KEYWORD_FIELDS,
    DESCRIBED,
    CodeHit,
    code_hit,
    described_digest,
    prefixes,
    with_shared,
)
from codememory.codesearch.prepared import (
    EncoderSettings,
    PreparedSymbol,
    encoder_settings,
    point_id,
    prepare_symbols,
)
from codememory.codesearch.search import CodeSearch, SearchMode
from codememory.events import Symbol
from codememory.lexical import SparseEncoder
from codememory.vectorstore import (
    EdgeVectorIndex,
    IndexFilter,
    IndexPoint,
    VectorIndex,
    VectorIndexError,
)

__all__ = ["CODE_KEYWORD_FIELDS", "CodeHit", "CodeIndex", "open_code_index"]

Vectors = Sequence[Sequence[float]]
FileKey = tuple[str, str, str]  # (tenant, repo, path)


def open_code_index(directory: Path, dense_size: int) -> EdgeVectorIndex:
    """The code collection on a Qdrant Edge shard in ``directory`` (created on first use)."""
    return EdgeVectorIndex(directory, dense_size, keyword_fields=CODE_KEYWORD_FIELDS, float_fields=())


def _require(**values: str) -> None:
    for name, value in values.items():
        if not value or not value.strip():
            raise InvalidCodeInputError(f"{name} must not be empty")


class CodeIndex:
    """Symbols by (tenant, repo, path) over any ``VectorIndex``; see the module docstring."""

    def __init__(
        self, index: VectorIndex, *, encoder: SparseEncoder | None = None, config: FusionConfig | None = None
    ) -> None:
        self._index = index
        self._encoder = encoder or SparseEncoder()
        self.config = config or FusionConfig()
        self._files: dict[FileKey, set[str]] | None = None  # loaded on the first write, see ``_points_of``

    @property
    def encoder_settings(self) -> EncoderSettings:
        """The BM25 settings of this index's sparse vectors (``prepared`` ones must match)."""
        return encoder_settings(self._encoder)

    def _points_of(self) -> dict[FileKey, set[str]]:
        """Each file's point ids, kept as this object writes them (one scroll of the index on first use).

        Why: indexing a repository writes thousands of files, and asking the engine which points a file
        had (a filtered scroll) and what they held (a read) before every write cost more than the write.
        Correct while every write of the index goes through this object, as it does for the gateway's
        own code-search shard (rebuilt from LOG on start).
        """
        if self._files is None:
            files: dict[FileKey, set[str]] = {}
            for point in self._index.scroll(IndexFilter()):
                p = point.payload
                files.setdefault((str(p["tenant"]), str(p["repo"]), str(p["path"])), set()).add(point.id)
            self._files = files
        return self._files

    def _id(self, tenant: str, repo: str, qualname: str, rep: str) -> str:
        return point_id(tenant, repo, qualname, rep)

    def upsert_file(
        self,
        tenant: str,
        repo: str,
        path: str,
        symbols: Sequence[Symbol],
        vectors: Mapping[str, Vectors] | None = None,
        *,
        prepared: Sequence[PreparedSymbol] | None = None,
    ) -> int:
        """Make ``symbols`` the file's whole content in the index; returns the number of points written.

        ``vectors[qualname]`` holds one vector per dense text of the symbol's document, in order (a
        shorter list leaves the rest to ``set_vectors``). Without a vector, a point keeps the vector it had
        if its text did not change, so re-indexing an unchanged symbol needs no new embedding.
        ``prepared``: the symbols as ``prepare_symbols`` made them for this tenant, repository, path and
        this index's encoder (by a worker, ahead of the fold); without it they are prepared here.
        """
        _require(tenant=tenant, repo=repo, path=path)
        qualnames = [s.qualname for s in symbols]
        if len(set(qualnames)) != len(qualnames):
            raise InvalidCodeInputError(f"duplicate qualnames in {path}")
        unknown = set(vectors or {}) - set(qualnames)
        if unknown:
            raise InvalidCodeInputError(f"vectors for symbols not in {path}: {sorted(unknown)[:5]}")
        for symbol in symbols:
            _require(qualname=symbol.qualname)
        if prepared is None or len(prepared) != len(symbols):
            prepared = prepare_symbols(tenant, repo, path, symbols, self._encoder)
        points: list[IndexPoint] = []
        for symbol, ready in zip(symbols, prepared, strict=True):
            given = (vectors or {}).get(symbol.qualname, ())
            if len(given) > len(ready.ids):
                raise InvalidCodeInputError(
                    f"{symbol.qualname}: {len(given)} vectors for {len(ready.ids)} dense texts"
                )
            for i, (pid, described) in enumerate(zip(ready.ids, ready.described, strict=True)):
                payload = {"qualname": symbol.qualname, "rep": REPRESENTATIONS[i], DESCRIBED: described}
                points.append(
                    IndexPoint(
                        id=pid,
                        payload=payload,
                        dense=tuple(given[i]) if i < len(given) else None,
                        sparse=ready.sparse if i == 0 else None,
                    )
                )
        shared = {"tenant": tenant, "repo": repo, "path": path, "dirs": prefixes(path)}
        try:
            files = self._points_of()
            had = files.get((tenant, repo, path), set())
            points = self._keep_unchanged_vectors(points, had)
            now = {p.id for p in points}
            if stale := had - now:
                self._index.delete(sorted(stale))
            self._write(points, had, shared)
        except VectorIndexError as exc:
            raise CodeIndexError(f"cannot index {repo}:{path}: {exc}") from exc
        if now:
            files[(tenant, repo, path)] = now
        else:
            files.pop((tenant, repo, path), None)
        return len(points)

    def _write(self, points: list[IndexPoint], had: set[str], shared: dict[str, Any]) -> None:
        """Upsert ``points`` with the file's ``shared`` payload fields (tenant, repo, path, dirs).

        A point new to the index gets them by one ``set_payload`` over the file's new points, so the
        engine converts each value once per file, not once per point (qdrant-edge converts a string
        value through failed numeric parses, ~9 us, and ``dirs`` is a list of them: they were half of
        a point's cost). Between the two updates a reader would see the new points without ``tenant``:
        no search finds them (every search filters by tenant), as before they existed. A point the
        index had gets them in its upsert, so it never drops out of a search while it is rewritten.
        """
        if not isinstance(self._index, EdgeVectorIndex):
            self._index.upsert([with_shared(p, shared) for p in points])
            return
        new = [p.id for p in points if p.id not in had]
        self._index.upsert([with_shared(p, shared) if p.id in had else p for p in points])
        if new:
            self._index.upsert_shared([], [(shared, new)])

    def _keep_unchanged_vectors(self, points: list[IndexPoint], had: set[str]) -> list[IndexPoint]:
        missing = [p.id for p in points if p.dense is None and p.id in had]  # a new point has no old vector
        if not missing:
            return points
        old = {p.id: p for p in self._index.get(missing, with_vectors=True)}
        kept = []
        for p in points:
            prev = old.get(p.id)
            unchanged = prev is not None and described_digest(prev.payload) == described_digest(p.payload)
            if p.dense is None and unchanged and prev is not None and prev.dense is not None:
                p = IndexPoint(id=p.id, payload=p.payload, dense=prev.dense, sparse=p.sparse)
            kept.append(p)
        return kept

    def remove_file(self, tenant: str, repo: str, path: str) -> int:
        """Forget every symbol of the file; returns the number of points removed."""
        _require(tenant=tenant, repo=repo, path=path)
        try:
            ids = sorted(self._points_of().get((tenant, repo, path), ()))
            self._index.delete(ids)
        except VectorIndexError as exc:
            raise CodeIndexError(f"cannot remove {repo}:{path}: {exc}") from exc
        self._points_of().pop((tenant, repo, path), None)
        return len(ids)

    def set_vectors(
        self, tenant: str, repo: str, path: str, qualnames: Sequence[str], vectors: Vectors
    ) -> int:
        """Attach dense vectors that arrived after the symbols (``SymbolsEmbedded``).

        A qualname listed n times gives the vectors of its first n dense texts, in order. A symbol no
        longer in ``path`` (the file changed or was deleted meanwhile) is skipped; returns how many
        points got a vector.
        """
        _require(tenant=tenant, repo=repo, path=path)
        if len(qualnames) != len(vectors):
            raise InvalidCodeInputError(f"{len(qualnames)} qualnames but {len(vectors)} vectors")
        seen: dict[str, int] = {}
        wanted: list[tuple[str, Sequence[float]]] = []
        for qualname, vector in zip(qualnames, vectors, strict=True):
            n = seen.get(qualname, 0)
            seen[qualname] = n + 1
            if n >= len(REPRESENTATIONS):
                raise InvalidCodeInputError(f"{qualname}: more vectors than representations")
            wanted.append((self._id(tenant, repo, qualname, REPRESENTATIONS[n]), vector))
        try:
            present = self._points_of().get((tenant, repo, path), set())  # the file's points now
            for point_id, vector in wanted:
                if point_id in present:
                    self._index.set_dense(point_id, vector)
        except VectorIndexError as exc:
            raise CodeIndexError(f"cannot set vectors in {repo}:{path}: {exc}") from exc
        return sum(1 for i, _ in wanted if i in present)

    def search(
        self,
        tenant: str,
        query_text: str,
        query_vector: Sequence[float] | None,
        *,
        limit: int = 10,
        repo: str | None = None,
        path_prefix: str | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[CodeHit]:
        """The best ``limit`` symbols of ``tenant`` for the query, best first, each with its parts.

        ``mode``: ``hybrid`` fuses every list; ``dense`` ranks by the best cosine over the dense texts
        (max-sim), ``dense:summary`` / ``dense:code`` by one of them, ``lexical`` by BM25 alone.
        Without a query vector, hybrid search is lexical.
        """
        _require(tenant=tenant)
        if limit < 1:
            raise InvalidCodeInputError(f"limit must be >= 1, got {limit}")
        if mode not in _MODES:
            raise InvalidCodeInputError(f"unknown search mode {mode!r}")
        if mode.startswith("dense") and query_vector is None:
            raise InvalidCodeInputError(f"{mode} search needs a query vector")
        equals: dict[str, str | int | bool] = {"tenant": tenant}
        if repo:
            equals["repo"] = repo
        prefix = (path_prefix or "").strip("/")
        scope = IndexFilter(equals=equals, any_of={"dirs": [prefix]} if prefix else {})
        point_id = functools.partial(self._id, tenant)
        search = CodeSearch(self._index, self._encoder, self.config, point_id, scope)
        try:
            found = search.run(query_text, query_vector, mode, limit)
        except VectorIndexError as exc:
            raise CodeIndexError(f"code search failed: {exc}") from exc
        return [code_hit(payload, parts) for payload, parts in found]


_MODES = frozenset({"hybrid", "dense", "dense:summary", "dense:code", "lexical"})
