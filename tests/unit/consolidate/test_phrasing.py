"""Lessons worded by an OpenAI-compatible endpoint (a local HTTP server that speaks its protocol)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from codememory.consolidate.phrasing import EndpointPhraser, Extracted, phraser
from codememory.events import InsightDerived

LESSON = InsightDerived(insight_id="i", kind="fix", title="`make` failed", situation="boom", what_worked="x")


class Endpoint(BaseHTTPRequestHandler):
    reply = "Title: make broke\nSituation: the build failed\nWhat worked: fix the include path"
    seen: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Endpoint.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        data = json.dumps({"choices": [{"message": {"content": Endpoint.reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_the_endpoint_words_the_lesson_and_is_named(endpoint: str) -> None:
    worded = EndpointPhraser(endpoint, "small-model", "sk-test").phrase(LESSON)
    assert (worded.title, worded.situation, worded.what_worked) == (
        "make broke",
        "the build failed",
        "fix the include path",
    )
    assert worded.phrased_by == "small-model" and worded.evidence_ids == LESSON.evidence_ids
    request = Endpoint.seen[-1]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    assert "`make` failed" in json.dumps(request["messages"])


def test_a_reply_of_another_shape_or_no_endpoint_keeps_the_extracted_wording(endpoint: str) -> None:
    Endpoint.reply = "I cannot help with that."
    try:
        assert EndpointPhraser(endpoint, "m").phrase(LESSON) == LESSON
    finally:
        Endpoint.reply = "Title: a\nSituation: b\nWhat worked: c"
    assert EndpointPhraser("http://127.0.0.1:9/v1", "m", timeout_s=1).phrase(LESSON) == LESSON
    assert isinstance(phraser("", ""), Extracted)
