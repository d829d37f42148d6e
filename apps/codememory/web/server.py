"""The web view's HTTP server: 127.0.0.1 only, every request checked against the local token.

A request shows the token as ``Authorization: Bearer``, the ``cm_token`` cookie, or ``?token=`` (the
``ui_url`` that ``up`` prints and writes to runtime.json); the page is answered with the cookie set
(HttpOnly, SameSite=Strict) so its own API calls carry it. No token is 401, a wrong one 403, compared
in constant time. The standard library's threading server runs in a daemon thread beside the stack's
event loop; the API is synchronous gRPC (``api.py``), so a slow call holds only its own thread.
"""

from __future__ import annotations

import hmac
import json
import threading
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

import structlog

from codememory.web.api import ApiError, GatewayApi

log = structlog.get_logger(__name__)

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/graph.js": ("graph.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
COOKIE = "cm_token"
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def static_file(name: str) -> bytes:
    return resources.files("codememory.web").joinpath("static", name).read_bytes()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # request lines carry the token in the query: never logged

    def _presented(self, query: dict[str, list[str]]) -> str | None:
        header = self.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            return header.removeprefix("Bearer ").strip()
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        if COOKIE in cookie:
            return cookie[COOKIE].value
        return query.get("token", [None])[0]

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        presented = self._presented(query)
        if presented is None:
            self._send_json(HTTPStatus.UNAUTHORIZED, {"error": "the local token is required (see ui_url)"})
            return
        if not hmac.compare_digest(presented.encode(), self.server.token.encode()):
            self._send_json(HTTPStatus.FORBIDDEN, {"error": "wrong token"})
            return
        if parts.path in STATIC:
            name, content_type = STATIC[parts.path]
            self._send(HTTPStatus.OK, static_file(name), content_type, set_cookie=parts.path == "/")
            return
        route = self.server.api.routes.get(parts.path)
        if route is None:
            self._send_json(HTTPStatus.NOT_FOUND, {"error": f"no such page {parts.path}"})
            return
        params = {key: values[-1] for key, values in query.items() if key != "token"}
        try:
            self._send_json(HTTPStatus.OK, route(params))
        except ApiError as exc:
            self._send_json(HTTPStatus(exc.status), {"error": str(exc)})
        except Exception as exc:  # a bug here must answer, not hang the page
            log.exception("web_request_failed", path=parts.path)
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": type(exc).__name__})

    def _send_json(self, status: HTTPStatus, body: object) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, *, set_cookie: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _SECURITY_HEADERS.items():
            self.send_header(name, value)
        if set_cookie:
            self.send_header("Set-Cookie", f"{COOKIE}={self.server.token}; HttpOnly; SameSite=Strict; Path=/")
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], token: str, api: GatewayApi) -> None:
        super().__init__(address, _Handler)
        self.token = token
        self.api = api


class WebServer:
    def __init__(self, server: _Server, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread
        self.port = int(server.server_address[1])

    def url(self, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/?token={token}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._server.api.close()
        self._thread.join(timeout=5)


def start_web(
    grpc_address: str, token: str, port: int = 0, root_certificate: bytes | None = None
) -> WebServer:
    """Serve the web view on 127.0.0.1:``port`` (0: any free port) over the gateway at ``grpc_address``."""
    api = GatewayApi(grpc_address, token, root_certificate=root_certificate)
    server = _Server(("127.0.0.1", port), token, api)
    thread = threading.Thread(target=server.serve_forever, name="codememory-web", daemon=True)
    thread.start()
    return WebServer(server, thread)
