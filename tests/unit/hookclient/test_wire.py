"""The blocking NATS client against a real nats-server, and a scripted fake for the rarer frames."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.client import JetStreamContext

from codememory.hookclient.protocol import NatsError, NatsTimeout, NoRespondersError
from codememory.hookclient.wire import NatsConnection
from codememory.runtime.natsd import NatsServer, free_port

Streams = tuple[Client, JetStreamContext]


async def test_publish_is_acked_and_stored_with_its_headers(
    hook_server: NatsServer, js_client: Streams
) -> None:
    _nc, js = js_client
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        ack = await asyncio.to_thread(
            conn.publish, "cm.hooks.local.claude.Stop", b'{"a":1}', {"Nats-Msg-Id": "m1"}, 2.0
        )
    assert (ack.stream, ack.seq, ack.duplicate) == ("HOOKS", 1, False)
    msg = await js.get_msg("HOOKS", 1)
    assert msg.subject == "cm.hooks.local.claude.Stop"
    assert msg.headers == {"Nats-Msg-Id": "m1"}
    assert msg.data == b'{"a":1}'


async def test_same_msg_id_is_stored_once(hook_server: NatsServer, js_client: Streams) -> None:
    _nc, js = js_client
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        first = conn.publish("cm.hooks.local.x.y", b"{}", {"Nats-Msg-Id": "same"}, 2.0)
        again = conn.publish("cm.hooks.local.x.y", b"{}", {"Nats-Msg-Id": "same"}, 2.0)
    assert not first.duplicate and again.duplicate and again.seq == first.seq
    assert (await js.stream_info("HOOKS")).state.messages == 1


async def test_publish_many_is_pipelined_in_order(hook_server: NatsServer, js_client: Streams) -> None:
    _nc, js = js_client
    items = [
        (f"cm.hooks.local.a.e{i}", json.dumps({"i": i}).encode(), {"Nats-Msg-Id": f"p{i}"}) for i in range(50)
    ]
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        results = conn.publish_many(items, 5.0)
    assert [getattr(r, "seq", None) for r in results] == list(range(1, 51))
    assert json.loads((await js.get_msg("HOOKS", 50)).data or b"") == {"i": 49}


async def test_no_stream_means_no_responders(hook_server: NatsServer, js_client: Streams) -> None:
    with NatsConnection.connect(hook_server.url, 2.0) as conn, pytest.raises(NoRespondersError):
        conn.publish("not.a.stream.subject", b"{}", {"Nats-Msg-Id": "x"}, 2.0)


async def test_oversized_message_is_a_permanent_error(hook_server: NatsServer, js_client: Streams) -> None:
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        result = conn.publish_many([("cm.hooks.local.a.b", b"x" * (conn.max_payload + 1), {})], 2.0)[0]
        assert isinstance(result, NatsError) and result.permanent
        assert conn.publish("cm.hooks.local.a.b", b"{}", {}, 2.0).seq == 1  # the connection still works


async def test_request_reply(hook_server: NatsServer, js_client: Streams) -> None:
    nc, _js = js_client

    async def answer(msg: Msg) -> None:
        await msg.respond(b"echo:" + msg.data)

    sub = await nc.subscribe("svc.echo", cb=answer)
    await nc.flush()
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        reply = await asyncio.to_thread(conn.request, "svc.echo", b"hi", 2.0)
        assert reply == b"echo:hi"
        with pytest.raises(NoRespondersError):
            await asyncio.to_thread(conn.request, "svc.nobody", b"hi", 2.0)
    await sub.unsubscribe()


async def test_request_times_out_when_the_responder_is_silent(
    hook_server: NatsServer, js_client: Streams
) -> None:
    nc, _js = js_client
    sub = await nc.subscribe("svc.silent")
    await nc.flush()
    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        started = time.monotonic()
        with pytest.raises(NatsTimeout):
            await asyncio.to_thread(conn.request, "svc.silent", b"hi", 0.2)
        assert time.monotonic() - started < 1.0
    await sub.unsubscribe()


def test_connect_refused_fails_fast() -> None:
    started = time.monotonic()
    with pytest.raises(NatsError):
        NatsConnection.connect(f"nats://127.0.0.1:{free_port()}", 1.0)
    assert time.monotonic() - started < 0.5


# --- a scripted fake server for PING, -ERR, silence and auth ------------------------------------


class FakeServer:
    """Accepts one connection, sends INFO, records what the client sends, and runs ``script``."""

    def __init__(self, script: Any, info: dict[str, object] | None = None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"nats://127.0.0.1:{self.listener.getsockname()[1]}"
        self.received = b""
        self.info = {"server_id": "fake", "max_payload": 1048576, "headers": True, **(info or {})}
        self.script = script
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.sendall(b"INFO " + json.dumps(self.info).encode() + b"\r\n")
            self.script(self, conn)

    def read_until(self, conn: socket.socket, marker: bytes) -> None:
        conn.settimeout(5)
        while marker not in self.received:
            chunk = conn.recv(65536)
            if not chunk:
                return
            self.received += chunk

    def close(self) -> None:
        self.listener.close()
        self.thread.join(5)


@pytest.fixture
def fake() -> Iterator[list[FakeServer]]:
    servers: list[FakeServer] = []
    yield servers
    for server in servers:
        server.close()


def _reply_subject(received: bytes) -> str:
    line = next(ln for ln in received.split(b"\r\n") if ln.startswith((b"HPUB", b"PUB ")))
    return line.split()[2].decode()


def test_ping_is_answered_and_connect_options_are_sent(fake: list[FakeServer]) -> None:
    def script(server: FakeServer, conn: socket.socket) -> None:
        server.read_until(conn, b"PUB")
        server.read_until(conn, b"\r\n{}\r\n")
        conn.sendall(b"PING\r\n")
        server.read_until(conn, b"PONG\r\n")
        payload = b'{"stream":"HOOKS","seq":42}'
        reply = _reply_subject(server.received)
        conn.sendall(f"+OK\r\nMSG {reply} 1 {len(payload)}\r\n".encode() + payload + b"\r\n")
        time.sleep(0.2)

    server = FakeServer(script)
    fake.append(server)
    with NatsConnection.connect(server.url.replace("nats://", "nats://user:pw@"), 2.0) as conn:
        ack = conn.publish("cm.hooks.t.a.e", b"{}", {"Nats-Msg-Id": "k"}, 2.0)
    assert ack.seq == 42
    connect_line = server.received.split(b"\r\n")[0]
    options = json.loads(connect_line[len(b"CONNECT ") :])
    assert options["headers"] is True and options["no_responders"] is True and options["verbose"] is False
    assert (options["user"], options["pass"]) == ("user", "pw")
    assert b"HPUB cm.hooks.t.a.e _INBOX_user." in server.received  # the user's own inbox
    assert b"NATS/1.0\r\nNats-Msg-Id: k\r\n\r\n{}\r\n" in server.received


def test_server_error_is_raised(fake: list[FakeServer]) -> None:
    def script(server: FakeServer, conn: socket.socket) -> None:
        server.read_until(conn, b"PUB")
        conn.sendall(b"-ERR 'Authorization Violation'\r\n")
        time.sleep(0.2)

    server = FakeServer(script)
    fake.append(server)
    with NatsConnection.connect(server.url, 2.0) as conn, pytest.raises(NatsError, match="Authorization"):
        conn.publish("a.b", b"{}", {}, 2.0)


def test_silent_server_times_out_within_the_deadline(fake: list[FakeServer]) -> None:
    server = FakeServer(lambda s, c: time.sleep(2.0), info={})
    fake.append(server)
    with NatsConnection.connect(server.url, 2.0) as conn:
        started = time.monotonic()
        with pytest.raises(NatsTimeout):
            conn.publish("a.b", b"{}", {}, 0.3)
        assert time.monotonic() - started < 1.0


def test_tls_only_server_is_refused(fake: list[FakeServer]) -> None:
    server = FakeServer(lambda s, c: time.sleep(0.2), info={"tls_required": True})
    fake.append(server)
    with pytest.raises(NatsError, match="TLS"):
        NatsConnection.connect(server.url, 2.0)


def test_malformed_server_line_is_a_nats_error(fake: list[FakeServer]) -> None:
    def script(server: FakeServer, conn: socket.socket) -> None:
        server.read_until(conn, b"PUB")
        conn.sendall(b"MSG _INBOX.x 1 not-a-number\r\n")
        time.sleep(0.2)

    server = FakeServer(script)
    fake.append(server)
    with NatsConnection.connect(server.url, 2.0) as conn, pytest.raises(NatsError, match="malformed"):
        conn.publish("a.b", b"{}", {}, 2.0)
