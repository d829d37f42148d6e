"""Both adapters behind one factory, so the contract suite is written once and run against each."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from vectorstore_support import KINDS, open_index  # type: ignore[import-not-found]

from codememory.vectorstore import VectorIndex


@pytest.fixture
def make_index(tmp_path: Path) -> Iterator[Callable[[str], VectorIndex]]:
    opened: list[VectorIndex] = []

    def make(kind: str) -> VectorIndex:
        index: VectorIndex = open_index(kind, tmp_path / f"{kind}-{len(opened)}")
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.close()


@pytest.fixture(params=KINDS)
def index(request: pytest.FixtureRequest, make_index: Callable[[str], VectorIndex]) -> VectorIndex:
    kind: str = request.param
    return make_index(kind)
