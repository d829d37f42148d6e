"""LOG is immutable: delete and purge are refused by the server, and duplicates are dropped."""

from __future__ import annotations

import pytest
from nats.aio.client import Client
from nats.js.api import RetentionPolicy, StorageType
from nats.js.errors import APIError

from codememory.bus import DLQ, HOOKS, LOG


async def test_streams_are_configured_as_designed(nc: Client) -> None:
    js = nc.jetstream()
    log = (await js.stream_info(LOG)).config
    assert log.deny_delete and log.deny_purge
    assert log.storage == StorageType.FILE and log.duplicate_window and log.duplicate_window > 0
    assert log.max_age in (None, 0)
    hooks = (await js.stream_info(HOOKS)).config
    assert hooks.retention == RetentionPolicy.WORK_QUEUE
    assert (await js.stream_info(DLQ)).config.subjects == ["cm.dlq.>"]


async def test_log_refuses_delete_and_purge(nc: Client) -> None:
    js = nc.jetstream()
    ack = await js.publish("cm.log.t.memory.stored", b"{}", headers={"Nats-Msg-Id": "immutable-test"})
    with pytest.raises(APIError):
        await js.delete_msg(LOG, ack.seq)
    with pytest.raises(APIError):
        await js.purge_stream(LOG)
