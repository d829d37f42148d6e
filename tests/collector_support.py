"""What the collector tests share: the collector as an ordinary process has it (the
``ordinary_collector`` fixture, ``conftest``), and an input that records the collector each read finds
(the worker processes' loops read their requests)."""

from __future__ import annotations

import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager

ORDINARY = (700, 10, 10)  # CPython's default thresholds


@contextmanager
def ordinary() -> Iterator[None]:
    """Default thresholds and nothing frozen for the block; the thresholds as before after it."""
    saved = gc.get_threshold()
    gc.set_threshold(*ORDINARY)
    gc.unfreeze()
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


class RecordingInput(io.BytesIO):
    """Frames to read; ``seen``: the collector's thresholds and freeze count as each read found them."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.seen: list[tuple[tuple[int, int, int], int]] = []

    def read(self, size: int | None = -1) -> bytes:
        self.seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return super().read(size)
