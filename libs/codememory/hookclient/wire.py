"""A minimal blocking NATS client: just enough protocol to publish to JetStream and make a request.

Why not nats-py: the hook is a fresh process per agent event and ``import asyncio, nats`` alone
costs 125-170 ms, while the whole hook must finish in ~60 ms. The NATS client protocol is plain
text over TCP, so one socket and a line parser do: read INFO, send CONNECT and SUB to a private
inbox, then HPUB with a reply subject and wait for the reply (a JetStream PubAck, or the answer to
a core request). Everything is pipelined into as few writes as possible and bounded by a deadline.
``_socket`` is used directly because the ``socket`` wrapper module imports ``selectors`` and
``enum`` on top (~5 ms). TLS (a ``tls://`` URL or a server that requires it) upgrades the socket
after INFO with ``_ssl``, imported only then; ``ca`` names the CA file of a private CA.
Replies come to the user's own inbox (``_INBOX_<user>``), the only one its permissions let it read.
"""

from __future__ import annotations

import _socket
import json
import os
import time

from codememory import subjects
from codememory.hookclient.protocol import (
    NatsError,
    NatsTimeout,
    NoRespondersError,
    PubAck,
    encode_headers,
    header_status,
    parse_pub_ack,
    parse_url,
)
from codememory.hookclient.sockets import open_socket, upgrade

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from codememory.hookclient.sockets import Socket, TlsSocket

__all__ = ["NatsConnection"]

_CRLF = b"\r\n"
_MAX_LINE = 64 * 1024


class NatsConnection:
    """One blocking connection. Not thread-safe; meant to live for one hook process."""

    def __init__(
        self,
        sock: _socket.socket | TlsSocket,
        info: dict[str, object],
        buffered: bytes = b"",
        inbox: str = "_INBOX",
    ) -> None:
        self._sock = sock
        self._buf = bytearray(buffered)
        self.info = info
        max_payload = info.get("max_payload")
        self.max_payload = max_payload if isinstance(max_payload, int) else 1024 * 1024
        self._inbox = f"{inbox}.{os.urandom(12).hex()}"
        self._next_reply = 0
        self._replies: dict[str, tuple[bytes | None, bytes]] = {}

    @classmethod
    def connect(
        cls, url: str, timeout: float, *, user: str = "", password: str = "", ca: str = ""
    ) -> NatsConnection:
        """Open, read INFO, and send CONNECT plus the inbox SUB (not waited for: pipelined).

        ``user``/``password`` win over credentials in the URL; a lone URL user is a token.
        """
        deadline = time.monotonic() + timeout
        host, port, url_user, url_password = parse_url(url)
        if not user:
            user, password = url_user, url_password
        raw = open_socket(host, port, deadline)
        sock: Socket | TlsSocket = raw
        try:
            reader = cls(sock, {})
            line = reader._read_line(deadline)
            if not line.startswith(b"INFO"):
                raise NatsError(f"expected INFO, got {line[:80]!r}")
            info = json.loads(line[4:])
            if not isinstance(info, dict):
                raise NatsError("malformed INFO")
            if info.get("tls_required") or url.strip().lower().startswith("tls://"):
                sock = upgrade(raw, host, ca, deadline)
            inbox = subjects.inbox(user) if user and password else subjects.INBOX
            conn = cls(sock, info, bytes(reader._buf), inbox)
            options: dict[str, object] = {
                "verbose": False,
                "pedantic": False,
                "headers": True,
                "no_responders": True,
                "lang": "python",
                "version": "codememory",
            }
            if user and password:
                options["user"], options["pass"] = user, password
            elif user:
                options["auth_token"] = user
            connect = b"CONNECT " + json.dumps(options, separators=(",", ":")).encode() + _CRLF
            conn._send(connect + f"SUB {conn._inbox}.* 1\r\n".encode(), deadline)
            return conn
        except BaseException:
            sock.close()
            raise

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> NatsConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- publishing -----------------------------------------------------------------------------

    def publish_many(
        self, items: Sequence[tuple[str, bytes, Mapping[str, str]]], timeout: float
    ) -> list[PubAck | NatsError]:
        """JetStream-publish every (subject, data, headers) in one pipelined write; one result each.

        The server stores messages from one connection in the order it reads them, so the stream
        keeps the order of ``items``. Unanswered items get a ``NatsTimeout``.
        """
        deadline = time.monotonic() + timeout
        results: list[PubAck | NatsError | None] = [None] * len(items)
        frames: list[bytes] = []
        waiting: dict[str, int] = {}
        for index, (subject, data, headers) in enumerate(items):
            header_block = encode_headers(headers) if headers else b""
            if len(header_block) + len(data) > self.max_payload:
                error = NatsError(f"message of {len(data)} bytes exceeds max_payload {self.max_payload}")
                error.permanent = True
                results[index] = error
                continue
            reply = self._new_reply()
            waiting[reply] = index
            frames.append(self._pub_frame(subject, reply, header_block, data))
        if frames:
            self._send(b"".join(frames), deadline)
        for reply, index in waiting.items():
            try:
                reply_headers, payload = self._wait_reply(reply, deadline)
                results[index] = parse_pub_ack(reply_headers, payload)
            except NatsError as exc:
                results[index] = exc
        return [r if r is not None else NatsTimeout("no reply") for r in results]

    def publish(self, subject: str, data: bytes, headers: Mapping[str, str], timeout: float) -> PubAck:
        """JetStream-publish one message and wait for its PubAck; raises NatsError otherwise."""
        result = self.publish_many([(subject, data, headers)], timeout)[0]
        if isinstance(result, NatsError):
            raise result
        return result

    def request(
        self, subject: str, data: bytes, timeout: float, headers: Mapping[str, str] | None = None
    ) -> bytes:
        """Core request-reply: the reply's payload, or NoRespondersError / NatsTimeout."""
        deadline = time.monotonic() + timeout
        reply = self._new_reply()
        header_block = encode_headers(headers) if headers else b""
        self._send(self._pub_frame(subject, reply, header_block, data), deadline)
        reply_headers, payload = self._wait_reply(reply, deadline)
        if reply_headers is not None and header_status(reply_headers) == 503:
            raise NoRespondersError(f"no responders on {subject}")
        return payload

    # --- internals ------------------------------------------------------------------------------

    def _new_reply(self) -> str:
        self._next_reply += 1
        return f"{self._inbox}.{self._next_reply}"

    @staticmethod
    def _pub_frame(subject: str, reply: str, header_block: bytes, data: bytes) -> bytes:
        if header_block:
            total = len(header_block) + len(data)
            head = f"HPUB {subject} {reply} {len(header_block)} {total}\r\n".encode()
            return head + header_block + data + _CRLF
        return f"PUB {subject} {reply} {len(data)}\r\n".encode() + data + _CRLF

    def _wait_reply(self, reply: str, deadline: float) -> tuple[bytes | None, bytes]:
        """Read protocol messages until the one for ``reply`` arrives; others are kept for later."""
        while reply not in self._replies:
            line = self._read_line(deadline)
            try:
                self._dispatch(line, deadline)
            except (ValueError, IndexError) as exc:
                raise NatsError(f"malformed protocol line {line[:80]!r}") from exc
        return self._replies.pop(reply)

    def _dispatch(self, line: bytes, deadline: float) -> None:
        """Handle one server line; MSG/HMSG payloads are stored by their (reply inbox) subject."""
        op = line.split(b" ", 1)[0].upper()
        if op == b"MSG":  # MSG <subject> <sid> [reply-to] <#bytes>
            args = line.split()
            payload = self._read_exact(int(args[-1]) + 2, deadline)[:-2]
            self._replies[args[1].decode()] = (None, payload)
        elif op == b"HMSG":  # HMSG <subject> <sid> [reply-to] <#header bytes> <#total bytes>
            args = line.split()
            header_len, total = int(args[-2]), int(args[-1])
            data = self._read_exact(total + 2, deadline)
            self._replies[args[1].decode()] = (data[:header_len], data[header_len:total])
        elif op == b"PING":
            self._send(b"PONG\r\n", deadline)
        elif op == b"-ERR":
            raise NatsError(f"server error: {line[5:].decode(errors='replace').strip()}")
        # PONG, +OK and async INFO need nothing.

    def _send(self, data: bytes, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise NatsTimeout("deadline passed")
        self._sock.settimeout(remaining)
        try:
            self._sock.sendall(data)
        except TimeoutError as exc:
            raise NatsTimeout("send timed out") from exc
        except OSError as exc:
            raise NatsError(f"connection error: {exc}") from exc

    def _fill(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise NatsTimeout("deadline passed")
        self._sock.settimeout(remaining)
        try:
            chunk = self._sock.recv(65536)
        except TimeoutError as exc:
            raise NatsTimeout("deadline passed") from exc
        except OSError as exc:
            raise NatsError(f"connection error: {exc}") from exc
        if not chunk:
            raise NatsError("connection closed by server")
        self._buf += chunk

    def _read_line(self, deadline: float) -> bytes:
        while True:
            end = self._buf.find(_CRLF)
            if end >= 0:
                line = bytes(self._buf[:end])
                del self._buf[: end + 2]
                return line
            if len(self._buf) > _MAX_LINE:
                raise NatsError("protocol line too long")
            self._fill(deadline)

    def _read_exact(self, size: int, deadline: float) -> bytes:
        while len(self._buf) < size:
            self._fill(deadline)
        data = bytes(self._buf[:size])
        del self._buf[:size]
        return data
