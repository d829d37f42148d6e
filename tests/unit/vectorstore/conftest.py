"""Both adapters behind one factory, so the contract suite is written once and run against each."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from codememory.vectorstore import EdgeVectorIndex, QdrantClientIndex, VectorIndex

DIM = 4
KINDS = ["edge", "client"]

MakeIndex = Callable[[str], VectorIndex]


def open_index(kind: str, path: Path) -> VectorIndex:
    if kind == "edge":
        return EdgeVectorIndex(path / "shard", DIM)
    client = QdrantClient(location=":memory:")
    with warnings.catch_warnings():
        # local mode has no payload indexes and says so; a server would build them
        warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
        return QdrantClientIndex(client, "memories", DIM)


@pytest.fixture
def make_index(tmp_path: Path) -> Iterator[MakeIndex]:
    opened: list[VectorIndex] = []

    def make(kind: str) -> VectorIndex:
        index = open_index(kind, tmp_path / f"{kind}-{len(opened)}")
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.close()


@pytest.fixture(params=KINDS)
def index(request: pytest.FixtureRequest, make_index: MakeIndex) -> VectorIndex:
    return make_index(request.param)
