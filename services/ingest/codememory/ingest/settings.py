"""The ingest service's settings, from ``CODEMEMORY_INGEST_<KEY>`` or ``CODEMEMORY_<KEY>``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codememory.settings import ConsumerSettings

SERVICE = "ingest"


@dataclass(frozen=True, kw_only=True)
class IngestSettings(ConsumerSettings):
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> IngestSettings:
        return cls.load(SERVICE, environ)
