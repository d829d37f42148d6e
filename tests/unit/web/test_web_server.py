"""The web view's HTTP server on its own (a gateway address nobody answers): the token is required and
checked, the page sets its cookie and security headers, bad parameters and an unreachable gateway
become JSON errors with an HTTP status, never a hang or a traceback."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from codememory.web import WebServer, start_web

TOKEN = "the-local-token"


def unused_address() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def web() -> Iterator[WebServer]:
    server = start_web(unused_address(), TOKEN)
    yield server
    server.close()


def get(web: WebServer, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{web.port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=15) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def test_no_token_is_401_and_a_wrong_one_403(web: WebServer) -> None:
    assert get(web, "/")[0] == 401
    assert get(web, "/api/memories")[0] == 401
    assert get(web, "/?token=wrong")[0] == 403
    assert get(web, "/api/status", Authorization="Bearer wrong")[0] == 403
    assert get(web, "/app.js", Cookie="cm_token=wrong")[0] == 403
    _, _, body = get(web, "/api/memories")
    assert "token" in json.loads(body)["error"]


def test_the_page_sets_its_cookie_and_the_assets_are_served(web: WebServer) -> None:
    status, headers, body = get(web, f"/?token={TOKEN}")
    assert status == 200 and b'<svg id="graph"' in body
    assert headers["Set-Cookie"].startswith(f"cm_token={TOKEN};") and "HttpOnly" in headers["Set-Cookie"]
    assert "default-src 'self'" in headers["Content-Security-Policy"]  # no script from anywhere else
    for path, kind in (
        ("/app.js", "text/javascript"),
        ("/graph.js", "text/javascript"),
        ("/style.css", "text/css"),
    ):
        status, headers, body = get(web, path, Cookie=f"cm_token={TOKEN}")
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
    assert web.url(TOKEN) == f"http://127.0.0.1:{web.port}/?token={TOKEN}"


def test_errors_are_json_with_a_status(web: WebServer) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    status, _, body = get(web, "/api/nothing", **auth)
    assert status == 404 and "no such page" in json.loads(body)["error"]
    status, _, body = get(web, "/api/memories?limit=many", **auth)
    assert status == 400 and "limit" in json.loads(body)["error"]
    status, _, body = get(web, "/api/graph", **auth)
    assert status == 400 and "node" in json.loads(body)["error"]
    status, _, body = get(web, "/api/events", **auth)  # the gateway does not answer
    assert status == 503 and "UNAVAILABLE" in json.loads(body)["error"]
