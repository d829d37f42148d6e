"""Where the gateway's projection lives, by generation, so replay can build a new one beside the old.

Qdrant Edge (the default): ``<data_dir>/memories/gen-<n>/`` holds the shard and its position file, and
``CURRENT`` names the generation in use. With a Qdrant server URL: collection ``memories_gen_<n>`` and
the position file under ``<data_dir>``. An Edge shard is wrapped in a payload cache (``PAYLOAD_CACHE``
entries): the gateway is its only writer. A server collection is not: other writers would not
invalidate it. The code projection's search shard is ``<data_dir>/code-<n>/``, rebuilt from LOG on
every start and on replay (the graph beside it lives in memory).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex, open_code_index
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import CodeProjection
from codememory.vectorstore import EdgeVectorIndex, PayloadCachedIndex, QdrantClientIndex, VectorIndex


class IndexGenerations:
    def __init__(
        self, data_dir: Path, dense_size: int, qdrant_url: str = "", *, payload_cache: int = 0
    ) -> None:
        self.root = data_dir / "memories"
        self.root.mkdir(parents=True, exist_ok=True)
        self._dense_size = dense_size
        self._qdrant_url = qdrant_url
        self._payload_cache = payload_cache

    def current(self) -> int:
        marker = self.root / "CURRENT"
        return int(marker.read_text().strip()) if marker.is_file() else 1

    def _open(self, generation: int) -> VectorIndex:
        if self._qdrant_url:
            from qdrant_client import QdrantClient

            client = QdrantClient(url=self._qdrant_url)
            return QdrantClientIndex(client, f"memories_gen_{generation}", self._dense_size)
        shard = EdgeVectorIndex(self.root / f"gen-{generation}" / "shard", self._dense_size)
        # this process is the shard's only writer, so recall may read payloads from memory
        return PayloadCachedIndex(shard, self._payload_cache) if self._payload_cache else shard

    def projection(self, generation: int, encoder: SparseEncoder) -> MemoryProjection:
        position = Position(self.root / f"gen-{generation}" / "position.json")
        return MemoryProjection(self._open(generation), encoder, position)

    def commit(self, generation: int) -> None:
        tmp = self.root / "CURRENT.tmp"
        tmp.write_text(str(generation))
        os.replace(tmp, self.root / "CURRENT")


def code_projection(
    data_dir: Path, generation: int, dense_size: int, encoder: SparseEncoder
) -> CodeProjection:
    """A fresh, empty code projection: graphs in memory and a new code-search shard on disk."""
    directory = data_dir / f"code-{generation}"
    shutil.rmtree(directory, ignore_errors=True)
    shard = open_code_index(directory, dense_size)
    return CodeProjection(
        TenantGraphs(), CodeIndex(shard, encoder=encoder), shard=shard, generation=generation
    )
