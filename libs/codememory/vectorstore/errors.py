"""What the vector index can report, independent of the engine behind it.

    VectorIndexError          a request failed (bad id, wrong dimension, engine error)
    ├── PointNotFoundError    an update addressed a point that does not exist
    └── IndexUnavailableError the index cannot be reached or opened, or is closed: retry later

Adapters translate library exceptions (bare ``Exception`` from Qdrant Edge, ``KeyError`` from
qdrant-client's local mode, HTTP errors from a server) into these, so callers handle one tree.
"""

from __future__ import annotations

__all__ = ["IndexUnavailableError", "PointNotFoundError", "VectorIndexError"]


class VectorIndexError(Exception):
    """Base of the vector index errors."""


class PointNotFoundError(VectorIndexError):
    """The point to update does not exist."""

    def __init__(self, point_id: str) -> None:
        super().__init__(f"no point with id {point_id}")
        self.point_id = point_id


class IndexUnavailableError(VectorIndexError):
    """The index could not be opened or reached, or was closed."""
