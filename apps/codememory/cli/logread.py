"""``codememory log``: read LOG straight from JetStream and print each event."""

from __future__ import annotations

import json

import nats

from codememory.bus import JetStreamEventLog
from codememory.runtime.buscreds import operator_options
from codememory.settings import default_home


async def print_log(nats_url: str, from_seq: int, limit: int, json_out: bool) -> None:
    nc = await nats.connect(nats_url, name="codememory-log", **operator_options(default_home()))
    try:
        printed = 0
        async for record in JetStreamEventLog(nc.jetstream()).read(from_seq):
            if json_out:
                envelope = json.loads(record.data)
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
