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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The builder hands every filter unchanged to an Edge index in its child (a child per test costs
    ~0.5 s): of the filter cases it runs the one that combines every kind of condition; the others are
    Edge's own semantics, run above, and their wire form is checked in test_builder."""
    keep = [
        item
        for item in items
        if not (item.name.startswith("test_filters[builder-") and not item.name.endswith("expected14]"))
    ]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
