"""``codememory log``: read LOG straight from JetStream and print each event.

Sealed fields are opened with this home's key store (``[erased]`` where the keys were destroyed); a
record that cannot be decoded is printed as stored.
"""

from __future__ import annotations

import json

import msgspec
import nats

from codememory.bus import JetStreamEventLog
from codememory.events import EventDecodeError, decode_envelope
from codememory.runtime.buscreds import operator_options
from codememory.sealing import SealingSettings, install_sealing
from codememory.settings import default_home


async def print_log(nats_url: str, from_seq: int, limit: int, json_out: bool) -> None:
    install_sealing(SealingSettings.from_env())
    nc = await nats.connect(nats_url, name="codememory-log", **operator_options(default_home()))
    try:
        printed = 0
        async for record in JetStreamEventLog(nc.jetstream()).read(from_seq):
            if json_out:
                envelope = _readable(record.data)
                print(
                    json.dumps({"seq": record.seq, "subject": record.subject, **envelope}, ensure_ascii=False)
                )
            else:
                print(f"{record.seq:>8}  {record.subject}")
            printed += 1
            if limit and printed >= limit:
                break
    finally:
        await nc.close()


def _readable(data: bytes) -> dict[str, object]:
    try:
        opened: dict[str, object] = msgspec.to_builtins(decode_envelope(data))
        return opened
    except EventDecodeError:
        raw: dict[str, object] = json.loads(data)
        return raw
