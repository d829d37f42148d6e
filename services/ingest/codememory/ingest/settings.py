"""The ingest service's settings, from ``CODEMEMORY_INGEST_<KEY>`` or ``CODEMEMORY_<KEY>``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codememory.settings import env_int, env_str

SERVICE = "ingest"


@dataclass(frozen=True, kw_only=True)
class IngestSettings:
    nats_url: str = "nats://127.0.0.1:4222"
    batch: int = 64
    max_deliver: int = 5
    log_level: str = "info"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> IngestSettings:
        return cls(
            nats_url=env_str(SERVICE, "nats_url", cls.nats_url, environ),
            batch=env_int(SERVICE, "batch", cls.batch, environ),
            max_deliver=env_int(SERVICE, "max_deliver", cls.max_deliver, environ),
            log_level=env_str(SERVICE, "log_level", cls.log_level, environ),
        )
