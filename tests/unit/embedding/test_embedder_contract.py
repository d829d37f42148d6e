"""One contract for every ``Embedder``: the bundled MiniLM, a local sentence-transformers directory, and
an OpenAI-compatible endpoint (a real HTTP server in this test, answering with a real local model).

all-mpnet-base-v2 passes the same checks in the model-migration end-to-end test (loading it here would
cost the unit suite ten seconds).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from codememory.embedding import Embedder, MiniLmEmbedder, load_embedder, parse_model
from codememory.embedding.minilm import model_path

TEXTS = ["validate an access token", "check that the JWT is valid", "bake bread at 220 degrees"]


class EmbeddingsServer:
    """``POST /v1/embeddings`` answered by ``model``; remembers the Authorization headers it saw."""

    def __init__(self, model: Embedder, *, fail_with: int = 0, answer: Any = None) -> None:
        self.model = model
        self.fail_with = fail_with
        self.answer = answer
        self.authorizations: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.authorizations.append(self.headers.get("Authorization", ""))
                if server.fail_with:
                    self.send_response(server.fail_with)
                    self.end_headers()
                    return
                vectors = server.model.embed(body["input"])
                data = server.answer or {
                    "object": "list",
                    "model": body["model"],
                    "data": [  # out of order on purpose: clients must use the index
                        {"object": "embedding", "index": i, "embedding": list(v)}
                        for i, v in reversed(list(enumerate(vectors)))
                    ],
                }
                payload = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                return

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()


@pytest.fixture(scope="module")
def server(embedder: MiniLmEmbedder) -> Iterator[EmbeddingsServer]:
    running = EmbeddingsServer(embedder)
    yield running
    running.close()


@pytest.fixture(scope="module", params=["minilm", "local", "openai"])
def model(request: pytest.FixtureRequest, embedder: MiniLmEmbedder, server: EmbeddingsServer) -> Embedder:
    if request.param == "minilm":
        return embedder
    if request.param == "local":
        return load_embedder(f"local:{model_path()}", cache_dir=Path("/nonexistent"))
    return load_embedder(f"openai:all-minilm@{server.url}", cache_dir=Path("/nonexistent"), api_key="k-1")


def _dot(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_have_the_models_width_and_unit_length(model: Embedder) -> None:
    vectors = model.embed(TEXTS)
    assert model.model_id and model.dim == 384
    assert [len(v) for v in vectors] == [model.dim] * len(TEXTS)
    assert all(abs(math.sqrt(_dot(v, v)) - 1.0) < 1e-5 for v in vectors)


def test_one_text_embeds_as_in_a_batch_and_nothing_gives_nothing(model: Embedder) -> None:
    batch = model.embed(TEXTS)
    assert model.embed([]) == []
    for text, expected in zip(TEXTS, batch, strict=True):
        assert _dot(model.embed([text])[0], expected) > 1 - 1e-4


def test_similar_meaning_scores_higher(model: Embedder) -> None:
    query, close, far = model.embed(TEXTS)
    assert _dot(query, close) > _dot(query, far) + 0.2


def test_every_implementation_puts_a_text_in_the_same_place(
    model: Embedder, embedder: MiniLmEmbedder
) -> None:
    """The three are the same weights: the local directory and the endpoint reproduce the bundled model."""
    assert _dot(model.embed(TEXTS[:1])[0], embedder.embed(TEXTS[:1])[0]) > 1 - 1e-4


def test_ids_say_where_vectors_come_from(embedder: MiniLmEmbedder, server: EmbeddingsServer) -> None:
    assert parse_model(f"local:{model_path()}").model_id == f"local/{model_path().resolve().name}"
    assert (
        parse_model(f"openai:text-embedding-3-small@{server.url}").model_id == "openai/text-embedding-3-small"
    )
    assert parse_model("mpnet").model_id == "sentence-transformers/all-mpnet-base-v2"
    assert parse_model("sentence-transformers/all-MiniLM-L6-v2").model_id == embedder.model_id
