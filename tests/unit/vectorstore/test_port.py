"""Port helpers shared by the adapters."""

from __future__ import annotations

import uuid

import pytest

from codememory.vectorstore import IndexFilter, VectorIndexError, canonical_id
from codememory.vectorstore.port import check_dense


def test_canonical_id() -> None:
    raw = uuid.uuid4()
    assert canonical_id(raw.hex.upper()) == str(raw)
    assert canonical_id(str(raw)) == str(raw)
    with pytest.raises(VectorIndexError, match="not a UUID"):
        canonical_id("memory-1")


def test_filter_shape() -> None:
    assert IndexFilter().is_empty
    assert not IndexFilter(ranges={"created_at": (None, 5.0)}).is_empty
    assert IndexFilter(any_of={"state": []}).matches_nothing
    assert not IndexFilter(any_of={"state": ["active"]}).matches_nothing


def test_check_dense() -> None:
    assert check_dense((1, 2), 2) == [1.0, 2.0]
    with pytest.raises(VectorIndexError, match="3 dimensions"):
        check_dense([1.0, 2.0, 3.0], 2)
