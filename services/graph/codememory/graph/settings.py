"""The graph service's settings, from ``CODEMEMORY_GRAPH_<KEY>`` or ``CODEMEMORY_<KEY>``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codememory.settings import ConsumerSettings

SERVICE = "graph"


@dataclass(frozen=True, kw_only=True)
class GraphSettings(ConsumerSettings):
    batch: int = 32

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GraphSettings:
        return cls.load(SERVICE, environ)
