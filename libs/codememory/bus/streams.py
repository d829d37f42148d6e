"""The JetStream streams and how they are configured.

HOOKS is a short-lived work queue of raw payloads (it may hold what redaction missed, so it is never
the record). LOG is the immutable event log, the only source of truth: file storage, no age limit,
``deny_delete`` and ``deny_purge``, and a dedupe window so a retried publish of the same event id is
stored once. DLQ keeps what could not be decoded or processed, with the reason. REDRIVE is a work
queue of dead letters put back for their service (``codememory dlq redrive``). ``replicas`` is 3 on
a NATS cluster (a setting: ``CODEMEMORY_STREAM_REPLICAS``); durability of a single node comes from
the server's ``sync_interval: always`` (see ``runtime.natsd``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import structlog
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig
from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError

from codememory import subjects
from codememory.topology import DLQ, HOOKS, LOG, REDRIVE

log = structlog.get_logger(__name__)

__all__ = ["DLQ", "HOOKS", "LOG", "REDRIVE", "StreamSettings", "ensure_streams", "stream_configs"]

DAY = 24 * 3600.0


@dataclass(frozen=True, kw_only=True)
class StreamSettings:
    replicas: int = 1
    hooks_max_age_days: float = 7.0
    dedupe_window_s: float = 2 * 3600.0


def stream_configs(settings: StreamSettings) -> list[StreamConfig]:
    return [
        StreamConfig(
            name=HOOKS,
            subjects=[subjects.HOOKS_ALL],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            max_age=settings.hooks_max_age_days * DAY,
            duplicate_window=settings.dedupe_window_s,
            num_replicas=settings.replicas,
        ),
        StreamConfig(
            name=LOG,
            subjects=[subjects.LOG_ALL],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            discard=DiscardPolicy.NEW,
            duplicate_window=settings.dedupe_window_s,
            deny_delete=True,
            deny_purge=True,
            num_replicas=settings.replicas,
            allow_atomic=True,  # an import's appends go as atomic batches (``eventlog``)
        ),
        StreamConfig(
            name=DLQ,
            subjects=[subjects.DLQ_ALL],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            num_replicas=settings.replicas,
        ),
        StreamConfig(
            name=REDRIVE,
            subjects=[subjects.REDRIVE_ALL],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=settings.dedupe_window_s,
            num_replicas=settings.replicas,
        ),
    ]


async def ensure_streams(js: JetStreamContext, settings: StreamSettings | None = None) -> None:
    """Create the streams that are missing; leave existing ones as they are, except that LOG takes
    atomic batches (``eventlog``) from now on."""
    for config in stream_configs(settings or StreamSettings()):
        assert config.name is not None
        try:
            info = await js.stream_info(config.name)
        except NotFoundError:
            await js.add_stream(config)
            continue
        if config.allow_atomic and not info.config.allow_atomic:  # a LOG made before atomic appends
            try:
                await js.update_stream(replace(info.config, allow_atomic=True))
            except Exception as exc:  # an older server: appends go one by one, as before
                log.warning("log_atomic_not_enabled", stream=config.name, error=repr(exc))
