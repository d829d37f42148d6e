"""Header lines parsed as nats-py parses them, faster; a client using them reads the same headers."""

from __future__ import annotations

import random

import nats
from nats.aio.client import Client

from codememory.bus.headers import parse_header_lines, use_fast_headers
from codememory.runtime.natsd import NatsServer

LOG_HEADERS = (
    b"Nats-Msg-Id: 97eec144-f90a-458f-9336-cef699461888\r\nNats-Expected-Stream: LOG\r\n"
    b"Nats-Batch-Id: 61819051af9c4eedac82ea3cd5e4d745\r\nNats-Batch-Sequence: 1\r\n\r\n"
)
_PIECES = (
    b"Nats-Msg-Id", b"a", b"K", b" ", b"\t", b"\x0b", b"\x0c", b"\x1c", b"\x1f", b":", b": ", b"::",
    b"\xc3\xa9", b"\xff", b"\xe2\x82", b"-", b"\r", b"\n", b"\r\n", b"value", b"\x00", b"=",
)  # fmt: skip


def test_the_same_dict_as_nats_py_for_any_header_block() -> None:
    gen = random.Random(14)
    blocks = [LOG_HEADERS, b"", b"\r\n", b"A:1\r\nA:2\r\n", b" : x\r\n", b"\x1cKey: v\r\n", b"K\x85: v\r\n"]
    for _ in range(20_000):
        lines = [b"".join(gen.choices(_PIECES, k=gen.randint(0, 6))) for _ in range(gen.randint(0, 5))]
        blocks.append(b"\r\n".join(lines) + gen.choice((b"", b"\r\n", b"\r\n\r\n")))
    for block in blocks:
        assert parse_header_lines(block) == Client._parse_header_lines(block), block


async def test_a_client_using_them_receives_the_headers_it_would_have(tmp_path) -> None:  # type: ignore[no-untyped-def]
    headers = {"Nats-Msg-Id": "m-1", "Nats-Batch-Sequence": "7", "Note": "crème brûlée"}
    with NatsServer(tmp_path / "nats") as server:
        received = []
        for fast in (False, True):
            nc = await nats.connect(server.url)
            if fast:
                use_fast_headers(nc)
                assert nc._parse_header_lines is parse_header_lines
            sub = await nc.subscribe("h.test")
            await nc.publish("h.test", b"x", headers=headers)
            received.append((await sub.next_msg(timeout=5)).headers)
            await nc.close()
    assert received[0] == received[1]
    assert received[1] is not None and received[1]["Nats-Batch-Sequence"] == "7"
