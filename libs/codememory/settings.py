"""Reading settings from the environment, the same way for every service.

Each service defines one frozen settings dataclass and builds it with ``env_str`` and friends, which
look up ``CODEMEMORY_<SERVICE>_<KEY>`` first and fall back to ``CODEMEMORY_<KEY>``. Settings objects
are passed explicitly; nothing reads the environment after start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Self


class SettingsError(ValueError):
    """A setting is present but cannot be used."""


def _lookup(service: str, key: str, environ: Mapping[str, str]) -> str | None:
    for name in (f"CODEMEMORY_{service.upper()}_{key.upper()}", f"CODEMEMORY_{key.upper()}"):
        value = environ.get(name)
        if value is not None and value != "":
            return value
    return None


def env_str(service: str, key: str, default: str, environ: Mapping[str, str] | None = None) -> str:
    value = _lookup(service, key, os.environ if environ is None else environ)
    return default if value is None else value


def env_int(service: str, key: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    value = _lookup(service, key, os.environ if environ is None else environ)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise SettingsError(f"CODEMEMORY_{key.upper()} must be an integer, got {value!r}") from exc


def env_float(service: str, key: str, default: float, environ: Mapping[str, str] | None = None) -> float:
    value = _lookup(service, key, os.environ if environ is None else environ)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise SettingsError(f"CODEMEMORY_{key.upper()} must be a number, got {value!r}") from exc


def env_bool(service: str, key: str, default: bool, environ: Mapping[str, str] | None = None) -> bool:
    value = _lookup(service, key, os.environ if environ is None else environ)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def default_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("CODEMEMORY_HOME") or Path.home() / ".codememory").expanduser()


def parse_tokens(spec: str) -> dict[str, str]:
    """``token=tenant,token2=tenant2`` into a mapping; the tenant comes from credentials only."""
    tokens: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        token, sep, tenant = item.partition("=")
        if not sep or not token or not tenant:
            raise SettingsError(f"bad token mapping {item!r}: expected token=tenant")
        tokens[token] = tenant
    return tokens


@dataclass(frozen=True, kw_only=True)
class ConsumerSettings:
    """What every consumer service reads: where NATS is, batch size, redelivery limit, log level."""

    nats_url: str = "nats://127.0.0.1:4222"
    batch: int = 64
    max_deliver: int = 5  # attempts of a message that keeps failing before it is dead-lettered
    ack_wait_s: float = 60.0
    stream_replicas: int = 1  # replicas of the streams this service creates when missing (3 on a cluster)
    log_level: str = "info"

    @classmethod
    def load(cls, service: str, environ: Mapping[str, str] | None = None) -> Self:
        return cls(
            nats_url=env_str(service, "nats_url", cls.nats_url, environ),
            batch=_positive(service, "batch", env_int(service, "batch", cls.batch, environ)),
            max_deliver=_positive(
                service, "max_deliver", env_int(service, "max_deliver", cls.max_deliver, environ)
            ),
            ack_wait_s=env_float(service, "ack_wait_s", cls.ack_wait_s, environ),
            stream_replicas=stream_replicas(environ),
            log_level=env_str(service, "log_level", cls.log_level, environ),
        )


def stream_replicas(environ: Mapping[str, str] | None = None) -> int:
    """``CODEMEMORY_STREAM_REPLICAS``: 1 on one server, 3 (or 5) on a JetStream cluster."""
    value = env_int("stream", "replicas", 1, environ)
    if value not in (1, 3, 5):
        raise SettingsError(f"CODEMEMORY_STREAM_REPLICAS must be 1, 3 or 5, got {value}")
    return value


def _positive(service: str, key: str, value: int) -> int:
    if value < 1:
        raise SettingsError(f"CODEMEMORY_{service.upper()}_{key.upper()} must be 1 or more, got {value}")
    return value
