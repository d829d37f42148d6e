"""The vector index behind one port: Qdrant Edge in-process by default, qdrant-client for a server.

``QdrantClientIndex`` is imported on first use: qdrant-client takes over a second to import, which
every process that only needs the port types or Qdrant Edge would otherwise pay.
"""

from typing import TYPE_CHECKING, Any

from codememory.lexical import SparseVec
from codememory.vectorstore.builder import ShardBuilder
from codememory.vectorstore.cached import PayloadCachedIndex
from codememory.vectorstore.digest import index_digest, point_record
from codememory.vectorstore.edge import EdgeVectorIndex
from codememory.vectorstore.errors import IndexUnavailableError, PointNotFoundError, VectorIndexError
from codememory.vectorstore.layout import DEFAULT_LAYOUT, LAYOUTS, DenseSearch, ShardLayout, layout_named
from codememory.vectorstore.port import (
    DEFAULT_FLOAT_FIELDS,
    DEFAULT_KEYWORD_FIELDS,
    DENSE,
    SPARSE,
    Hit,
    IndexFilter,
    IndexPoint,
    PairedSearch,
    StoredPoint,
    VectorIndex,
    canonical_id,
    search_pair,
)

if TYPE_CHECKING:
    from codememory.vectorstore.client import QdrantClientIndex

__all__ = [
    "DEFAULT_FLOAT_FIELDS",
    "DEFAULT_KEYWORD_FIELDS",
    "DEFAULT_LAYOUT",
    "DENSE",
    "LAYOUTS",
    "SPARSE",
    "DenseSearch",
    "EdgeVectorIndex",
    "Hit",
    "IndexFilter",
    "IndexPoint",
    "IndexUnavailableError",
    "PairedSearch",
    "PayloadCachedIndex",
    "PointNotFoundError",
    "QdrantClientIndex",
    "ShardBuilder",
    "ShardLayout",
    "SparseVec",
    "StoredPoint",
    "VectorIndex",
    "VectorIndexError",
    "canonical_id",
    "index_digest",
    "layout_named",
    "point_record",
    "search_pair",
]


def __getattr__(name: str) -> Any:
    if name == "QdrantClientIndex":
        from codememory.vectorstore.client import QdrantClientIndex

        return QdrantClientIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
