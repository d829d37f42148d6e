"""The embed service's settings, from ``CODEMEMORY_EMBED_<KEY>`` or ``CODEMEMORY_<KEY>``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codememory.settings import ConsumerSettings

SERVICE = "embed"


@dataclass(frozen=True, kw_only=True)
class EmbedSettings(ConsumerSettings):
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbedSettings:
        return cls.load(SERVICE, environ)
