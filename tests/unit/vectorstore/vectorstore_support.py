"""Helpers shared by the vector store tests: ids, unit vectors, and opening either adapter."""

from __future__ import annotations

import math
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path

from qdrant_client import QdrantClient

from codememory.vectorstore import (
    EdgeVectorIndex,
    PayloadCachedIndex,
    QdrantClientIndex,
    ShardBuilder,
    VectorIndex,
    layout_named,
)

DIM = 4
KINDS = ["edge", "client", "cached", "builder", "disk"]  # cached: Edge behind the payload cache; builder:
# Edge written by a child process (ShardBuilder); disk: Edge in the ``disk`` layout (vectorstore.layout)
# A few indexed fields (each costs ~25 ms to create on Edge); filters on others ("n") run unindexed.
KEYWORDS = ("tenant", "state", "tags")
FLOATS = ("created_at",)

MakeIndex = Callable[[str], VectorIndex]


def pid(n: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"point-{n}"))


def unit(*xs: float) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in xs))
    return tuple(x / norm for x in xs)


def open_local(client: QdrantClient, dense_size: int = DIM) -> QdrantClientIndex:
    # local mode warns (once per process, so in whichever test comes first) that it ignores payload indexes
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
        return QdrantClientIndex(client, "memories", dense_size, keyword_fields=KEYWORDS, float_fields=FLOATS)


def open_index(kind: str, path: Path) -> VectorIndex:
    if kind == "builder":
        EdgeVectorIndex(path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS).close()
        return ShardBuilder(path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    if kind in ("edge", "cached", "disk"):
        layout = layout_named("disk") if kind == "disk" else None
        edge = EdgeVectorIndex(
            path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS, layout=layout
        )
        return PayloadCachedIndex(edge, capacity=64) if kind == "cached" else edge
    return open_local(QdrantClient(location=":memory:"))
