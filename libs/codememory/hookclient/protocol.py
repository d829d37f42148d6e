"""NATS client-protocol pieces shared by the hook's blocking client: errors, URL, headers, PubAck.

Kept separate from the connection so the parsing rules (what a 503 means, which JetStream errors
are permanent) can be read and tested on their own; see ``wire`` for why there is a client at all.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "JetStreamError",
    "NatsError",
    "NatsTimeout",
    "NoRespondersError",
    "PubAck",
    "encode_headers",
    "header_status",
    "parse_pub_ack",
    "parse_url",
]

_CRLF = b"\r\n"


class NatsError(Exception):
    """Protocol, connection or server error. ``permanent`` means retrying the same message is futile."""

    permanent = False


class NatsTimeout(NatsError):
    """No reply before the deadline."""


class NoRespondersError(NatsError):
    """Status 503 on the reply inbox: nobody listens on the subject (for JetStream: no stream)."""


class JetStreamError(NatsError):
    """JetStream answered the publish with ``{"error": {...}}``."""

    def __init__(self, code: int, err_code: int, description: str) -> None:
        super().__init__(f"jetstream error {code}/{err_code}: {description}")
        self.code = code
        self.err_code = err_code
        # 400s (bad request, message too large, ...) would fail again; 5xx are transient.
        self.permanent = code == 400


class PubAck:
    """A JetStream publish acknowledgement."""

    __slots__ = ("duplicate", "seq", "stream")

    def __init__(self, stream: str, seq: int, duplicate: bool) -> None:
        self.stream = stream
        self.seq = seq
        self.duplicate = duplicate

    def __repr__(self) -> str:
        return f"PubAck(stream={self.stream!r}, seq={self.seq}, duplicate={self.duplicate})"


def parse_url(url: str) -> tuple[str, int, str, str]:
    """``nats://[user[:pass]@]host[:port]`` -> (host, port, user, password); a lone user is a token."""
    rest = url.strip()
    scheme, sep, after = rest.partition("://")
    if sep:
        if scheme.lower() not in ("nats", "tcp", "tls"):
            raise NatsError(f"unsupported NATS URL scheme {scheme!r} (nats:// or tls://)")
        rest = after
    rest = rest.split("/", 1)[0]
    user = password = ""
    if "@" in rest:
        creds, rest = rest.rsplit("@", 1)
        user, _, password = creds.partition(":")
    port = 4222
    if rest.startswith("["):  # [::1]:4222
        host, _, tail = rest[1:].partition("]")
        if tail.startswith(":"):
            port = int(tail[1:])
    elif ":" in rest:
        host, _, port_text = rest.rpartition(":")
        port = int(port_text)
    else:
        host = rest
    return host or "127.0.0.1", port, user, password


def encode_headers(headers: Mapping[str, str]) -> bytes:
    """The NATS/1.0 header block, including its terminating blank line."""
    parts = [b"NATS/1.0\r\n"]
    for name, value in headers.items():
        if any(c in name for c in ": \r\n") or "\r" in value or "\n" in value:
            raise NatsError(f"invalid header {name!r}")
        parts.append(f"{name}: {value}\r\n".encode())
    parts.append(_CRLF)
    return b"".join(parts)


def header_status(header_block: bytes) -> int:
    """The status code of a header block (``NATS/1.0 503``), or 0 when there is none."""
    first = header_block.split(_CRLF, 1)[0].split()
    return int(first[1]) if len(first) > 1 and first[1].isdigit() else 0


def parse_pub_ack(header_block: bytes | None, payload: bytes) -> PubAck:
    if header_block is not None:
        status = header_status(header_block)
        if status == 503:
            raise NoRespondersError("no JetStream stream for this subject (503 no responders)")
        if status >= 400:
            raise NatsError(f"status {status} on publish reply")
    try:
        ack = json.loads(payload)
    except ValueError as exc:
        raise NatsError(f"unparsable PubAck {payload[:100]!r}") from exc
    if not isinstance(ack, dict):
        raise NatsError(f"unexpected PubAck {payload[:100]!r}")
    error = ack.get("error")
    if isinstance(error, dict):
        raise JetStreamError(
            int(error.get("code") or 0), int(error.get("err_code") or 0), str(error.get("description", ""))
        )
    return PubAck(str(ack.get("stream", "")), int(ack.get("seq") or 0), bool(ack.get("duplicate", False)))
