"""Figures read when scraped (projection sequence and lag) and the embedding timer.

A projection's position and LOG's last sequence are already kept by the gateway (its live projections
and its watchdog, which reads LOG every second), so the gauges read them at scrape time instead of
being pushed on every event. The functions hold their owner weakly: a stopped gateway is not kept
alive by its metrics, and its gauges read 0 until a new one is tracked.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from typing import Protocol

from codememory.metrics.families import (
    EMBEDDING_SECONDS,
    EMBEDDING_TEXTS,
    LOG_LAST_SEQ,
    PROJECTION_LAG,
    PROJECTION_SEQ,
)


class Positioned(Protocol):
    @property
    def seq(self) -> int: ...


def track_projections(
    owner: object,
    projections: Callable[[object], Sequence[tuple[str, Positioned]]],
    log_last_seq: Callable[[object], int],
) -> None:
    """Gauge each of ``projections(owner)`` by name: its sequence, and LOG's last minus it (never < 0)."""
    ref = weakref.ref(owner)

    def last() -> float:
        alive = ref()
        return float(max(log_last_seq(alive), 0)) if alive is not None else 0.0

    LOG_LAST_SEQ.set_function(last)
    alive = ref()
    names = [name for name, _ in projections(alive)] if alive is not None else []
    for name in names:
        PROJECTION_SEQ.labels(projection=name).set_function(_seq_of(ref, projections, name))
        PROJECTION_LAG.labels(projection=name).set_function(_lag_of(ref, projections, log_last_seq, name))


def _position(
    ref: weakref.ref[object], projections: Callable[[object], Sequence[tuple[str, Positioned]]], name: str
) -> int | None:
    alive = ref()
    if alive is None:
        return None
    for found, projection in projections(alive):
        if found == name:
            return int(projection.seq)
    return None


def _seq_of(
    ref: weakref.ref[object], projections: Callable[[object], Sequence[tuple[str, Positioned]]], name: str
) -> Callable[[], float]:
    def read() -> float:
        return float(_position(ref, projections, name) or 0)

    return read


def _lag_of(
    ref: weakref.ref[object],
    projections: Callable[[object], Sequence[tuple[str, Positioned]]],
    log_last_seq: Callable[[object], int],
    name: str,
) -> Callable[[], float]:
    def read() -> float:
        alive = ref()
        seq = _position(ref, projections, name)
        if alive is None or seq is None:
            return 0.0
        return float(max(log_last_seq(alive) - seq, 0))

    return read


class TimedEmbedder:
    """An ``Embedder`` whose every batch is timed and counted (``caller``: who embeds: store, query)."""

    def __init__(self, inner: EmbedderLike, caller: str) -> None:
        self._inner = inner
        self._seconds = EMBEDDING_SECONDS.labels(model=inner.model_id, caller=caller)
        self._texts = EMBEDDING_TEXTS.labels(model=inner.model_id, caller=caller)

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        started = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self._seconds.observe(time.perf_counter() - started)
            self._texts.inc(len(texts))


class EmbedderLike(Protocol):
    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]: ...
