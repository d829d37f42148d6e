"""The hook's socket: TCP with ``_socket``, upgraded to TLS with ``_ssl`` when the server asks.

Both are the C modules under ``socket`` and ``ssl``: the wrapper modules import ``selectors`` and
``enum`` on top, several milliseconds of a hook that must finish in ~60 ms; ``_ssl`` is imported
only for a TLS connection.
"""

from __future__ import annotations

import _socket
import time

from codememory.hookclient.protocol import NatsError, NatsTimeout

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from typing import Protocol

    class _TlsObject(Protocol):  # ``_ssl._SSLSocket``, which typeshed does not describe
        def write(self, data: memoryview, /) -> int: ...
        def read(self, size: int, /) -> bytes: ...
        def do_handshake(self) -> None: ...


__all__ = ["open_socket", "upgrade"]


class Socket(_socket.socket):
    """``_socket.socket`` that TLS can wrap (``_ssl`` keeps a weak reference to its socket)."""


class TlsSocket:
    """The few socket methods this client uses, over an ``_ssl`` connection."""

    __slots__ = ("_raw", "_tls")

    def __init__(self, raw: Socket, tls: _TlsObject) -> None:
        self._raw = raw
        self._tls = tls

    def settimeout(self, seconds: float) -> None:
        self._raw.settimeout(seconds)

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._tls.write(view) :]

    def recv(self, size: int) -> bytes:
        return self._tls.read(size)

    def close(self) -> None:
        self._raw.close()


def upgrade(sock: Socket, host: str, ca: str, deadline: float) -> TlsSocket:
    """The connection over TLS, checked against ``ca`` (else the system's CAs) and ``host``.

    ``_ssl`` directly, not ``ssl``: the module imports ``socket`` and ``enum`` on top (~7 ms of the
    hook's budget, measured with ``-X importtime``); the checks are the same (certificate chain and
    host name required)."""
    import _ssl

    context = _ssl._SSLContext(_ssl.PROTOCOL_TLS_CLIENT)  # verify_mode CERT_REQUIRED, check_hostname
    if ca:
        context.load_verify_locations(ca)
    else:
        context.set_default_verify_paths()
    sock.settimeout(max(deadline - time.monotonic(), 0.001))
    try:
        tls: _TlsObject = context._wrap_socket(sock, False, host)  # type: ignore[attr-defined]
        tls.do_handshake()
    except OSError as exc:  # ssl errors are OSErrors; timeouts too
        sock.close()
        raise NatsError(f"TLS handshake with {host} failed: {exc}") from exc
    return TlsSocket(sock, tls)


def open_socket(host: str, port: int, deadline: float) -> Socket:
    last: Exception = NatsError(f"cannot resolve {host}")
    for family, kind, proto, _name, address in _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM):
        sock = Socket(family, kind, proto)
        try:
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    if isinstance(last, TimeoutError):
        raise NatsTimeout(f"connect to {host}:{port} timed out") from last
    raise NatsError(f"cannot connect to {host}:{port}: {last}") from last
