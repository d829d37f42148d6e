"""Where the gateway's projection lives, by generation, so replay can build a new one beside the old.

Qdrant Edge (the default): ``<data_dir>/memories/gen-<n>/`` holds the shard and its position file, and
``CURRENT`` names the generation in use. With a Qdrant server URL: collection ``memories_gen_<n>`` and
the position file under ``<data_dir>``. An Edge shard is wrapped in a payload cache (``PAYLOAD_CACHE``
entries): the gateway is its only writer. A server collection is not: other writers would not
invalidate it. The code projection's search shard is ``<data_dir>/code-<n>/``, rebuilt from LOG on
every start and on replay (the graph beside it lives in memory).

Each generation records the embedding model whose vectors it holds (``gen-<n>/model.json``: spec, id,
dimension; a generation without one holds the configured model's). ``active`` is the model of the
generation in use: replay rebuilds with it, and a model migration (``modelswitch.py``) builds a new
generation with another and makes it ``active`` when it commits. ``model.json`` also names how memory
points are keyed (``codememory.memory.POINT_IDS``); a generation keyed otherwise (by memory id alone,
before tenants were part of the key) is replaced at start by a fresh one filled from LOG (``renew``).

``model.json`` names the shard's layout too (``vectorstore.layout``: ``int8``, ``ram`` or ``disk``).
The engine fixes a segment's storage when it builds it, so the configured layout (``SHARD_LAYOUT``,
default ``int8``) is given to new generations only (a replay, a migration, a renewal): a generation is
always opened with the layout it was built with (one recorded before layouts existed is ``ram``),
never a mix of both.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex, open_code_index
from codememory.codesearch.prepared import PreparedFiles
from codememory.lexical import SparseEncoder
from codememory.memory import POINT_IDS, MemoryProjection, Position
from codememory.projection import CodeProjection
from codememory.vectorstore import (
    DEFAULT_LAYOUT,
    DenseSearch,
    EdgeVectorIndex,
    IndexFilter,
    PayloadCachedIndex,
    QdrantClientIndex,
    ShardLayout,
    VectorIndex,
    layout_named,
)


@dataclass(frozen=True)
class IndexModel:
    """The embedding model of a generation's dense vectors."""

    model_id: str
    dim: int
    spec: str = ""


class IndexGenerations:
    def __init__(
        self,
        data_dir: Path,
        dense_size: int,
        qdrant_url: str = "",
        *,
        payload_cache: int = 0,
        search: DenseSearch | None = None,
        model_id: str = "",
        spec: str = "",
        layout: ShardLayout | None = None,
    ) -> None:
        self.root = data_dir / "memories"
        self.root.mkdir(parents=True, exist_ok=True)
        self._qdrant_url = qdrant_url
        self._payload_cache = payload_cache
        self._search = search or DenseSearch()
        self.layout = layout or layout_named(DEFAULT_LAYOUT)  # of new generations
        configured = IndexModel(model_id, dense_size, spec)
        self.active = self.model_of(self.current()) or configured

    def model_of(self, generation: int) -> IndexModel | None:
        """The model a generation recorded (None: none recorded, the configured model's)."""
        try:
            data = json.loads((self.root / f"gen-{generation}" / "model.json").read_text())
            return IndexModel(str(data["model_id"]), int(data["dim"]), str(data.get("spec", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def layout_of(self, generation: int) -> ShardLayout:
        """The layout generation ``generation`` was built with: the recorded one; ``ram`` for a shard
        built before layouts were recorded; the configured one for a generation not built yet."""
        directory = self.root / f"gen-{generation}"
        try:
            recorded = json.loads((directory / "model.json").read_text()).get("layout")
        except (OSError, ValueError, AttributeError):
            recorded = None
        if isinstance(recorded, str):
            try:
                return layout_named(recorded)
            except ValueError:
                pass  # a name this version does not know: as configured
        elif (directory / "shard").is_dir() and any((directory / "shard").iterdir()):
            return ShardLayout()
        return self.layout

    def renew(self) -> int:
        """The current generation, or a fresh one in its place when it holds points keyed another way
        than ``POINT_IDS`` (the projection would not find them): the live projection fills it from LOG."""
        current = self.current()
        directory = self.root / f"gen-{current}"
        try:
            keyed = json.loads((directory / "model.json").read_text()).get("point_ids")
        except (OSError, ValueError, AttributeError):
            keyed = None
        if keyed == POINT_IDS or not (directory / "position.json").is_file():
            return current
        fresh = self.next_free()
        self.commit(fresh)
        shutil.rmtree(directory, ignore_errors=True)
        return fresh

    def next_free(self) -> int:
        """A generation number no directory uses yet (above the current one)."""
        used = [int(p.name[4:]) for p in self.root.glob("gen-*") if p.name[4:].isdigit()]
        return max([self.current(), *used]) + 1

    def current(self) -> int:
        marker = self.root / "CURRENT"
        return int(marker.read_text().strip()) if marker.is_file() else 1

    def _open(self, generation: int, dense_size: int, layout: ShardLayout) -> VectorIndex:
        if self._qdrant_url:
            from qdrant_client import QdrantClient

            client = QdrantClient(url=self._qdrant_url)
            return QdrantClientIndex(client, f"memories_gen_{generation}", dense_size)
        path = self.root / f"gen-{generation}" / "shard"
        shard = EdgeVectorIndex(path, dense_size, layout=layout, search=self._search)
        # this process is the shard's only writer, so recall may read payloads from memory
        return PayloadCachedIndex(shard, self._payload_cache) if self._payload_cache else shard

    def projection(
        self, generation: int, encoder: SparseEncoder, model: IndexModel | None = None
    ) -> MemoryProjection:
        """Generation ``generation`` holding ``model``'s vectors (``active`` by default), recorded."""
        chosen = model or self.active
        layout = self.layout_of(generation)
        directory = self.root / f"gen-{generation}"
        directory.mkdir(parents=True, exist_ok=True)
        marker = {"model_id": chosen.model_id, "dim": chosen.dim, "spec": chosen.spec, "point_ids": POINT_IDS}
        marker["layout"] = layout.name
        (directory / "model.json").write_text(json.dumps(marker))
        position = Position(directory / "position.json")
        index = self._open(generation, chosen.dim, layout)
        return MemoryProjection(index, encoder, position, model=chosen.model_id)

    def commit(self, generation: int) -> None:
        tmp = self.root / "CURRENT.tmp"
        tmp.write_text(str(generation))
        os.replace(tmp, self.root / "CURRENT")


def drop_unscoped_points(projection: MemoryProjection) -> int:
    """Before a projection folds LOG from the start: remove points keyed the old way (the point id is
    the memory id) that a Qdrant server collection kept from before ``POINT_IDS``; the fold writes them
    again under ``point_id``. One scroll of the collection: the fold that follows reads all of LOG."""
    if projection.last_seq:
        return 0  # a position past 0: ``renew`` replaced an outdated generation already
    old = [p.id for p in projection.index.scroll(IndexFilter()) if p.payload.get("memory_id") == p.id]
    if old:
        projection.index.delete(old)
        projection.index.flush()
    return len(old)


def code_projection(
    data_dir: Path,
    generation: int,
    dense_size: int,
    encoder: SparseEncoder,
    prepared: PreparedFiles | None = None,
) -> CodeProjection:
    """A fresh, empty code projection: graphs in memory and a new code-search shard on disk;
    ``prepared``: where RecordCode's intake leaves files it made ready for code search."""
    directory = data_dir / f"code-{generation}"
    shutil.rmtree(directory, ignore_errors=True)
    shard = open_code_index(directory, dense_size)
    index = CodeIndex(shard, encoder=encoder)
    return CodeProjection(TenantGraphs(), index, shard=shard, generation=generation, prepared=prepared)
