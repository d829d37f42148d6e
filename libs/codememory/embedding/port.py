"""The embedder port: texts in, unit-length vectors out, with the model id that made them.

The model id travels with every ``MemoryEmbedded`` event so a replay knows which model a vector
belongs to, and a query is only ever compared with vectors of the same model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class EmbeddingError(RuntimeError):
    """The model could not be loaded or failed on a batch."""


class Embedder(Protocol):
    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]: ...
