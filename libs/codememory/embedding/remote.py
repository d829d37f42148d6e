"""An OpenAI-compatible embeddings endpoint (``POST <base_url>/embeddings``) behind the ``Embedder`` port.

The request is ``{"model": M, "input": [texts]}`` and the answer ``{"data": [{"index": i, "embedding":
[...]}, ...]}``, which OpenAI, vLLM, llama.cpp's server, text-embeddings-inference and LocalAI all
speak. Standard library HTTP only (``urllib``): one POST per batch of ``batch_size`` texts. The
dimension is learnt from a probe at construction, so a wrong URL or model fails at startup, not on the
first memory. Every answer is checked (count, index, width, finite numbers) and normalised to unit
length. The API key goes in the ``Authorization`` header only: it is never part of an error message, a
log line or the model id (``openai/<model>``, so the same model behind another URL is the same space).
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from codememory.embedding.local import unit
from codememory.embedding.port import EmbeddingError

PROBE = "probe"


class RemoteEmbedder:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        timeout_s: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EmbeddingError(
                f"an embeddings endpoint URL starts with http:// or https://, got {base_url!r}"
            )
        if not model:
            raise EmbeddingError("an embeddings endpoint needs a model name")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._key = api_key
        self._timeout = timeout_s
        self._batch = max(1, batch_size)
        self._dim = 0
        self._dim = len(self._post([PROBE])[0])

    @property
    def model_id(self) -> str:
        return f"openai/{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        vectors: list[tuple[float, ...]] = []
        for start in range(0, len(texts), self._batch):
            vectors += self._post(list(texts[start : start + self._batch]))
        return vectors

    def _post(self, texts: list[str]) -> list[tuple[float, ...]]:
        body = json.dumps({"model": self._model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise EmbeddingError(f"{self._url} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EmbeddingError(f"{self._url} could not be reached: {exc}") from None
        except ValueError as exc:
            raise EmbeddingError(f"{self._url} did not answer JSON: {exc}") from None
        return self._vectors(answer, len(texts))

    def _vectors(self, answer: Any, count: int) -> list[tuple[float, ...]]:
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or len(data) != count:
            raise EmbeddingError(
                f"{self._url} answered {len(data) if isinstance(data, list) else 'no'} vectors "
                f"for {count} texts"
            )
        ordered: list[tuple[float, ...] | None] = [None] * count
        for position, item in enumerate(data):
            index = item.get("index", position) if isinstance(item, dict) else None
            vector = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(index, int) or not 0 <= index < count or not isinstance(vector, list):
                raise EmbeddingError(f"{self._url} answered a malformed vector at position {position}")
            if not vector or not all(isinstance(x, int | float) and math.isfinite(x) for x in vector):
                raise EmbeddingError(f"{self._url} answered a vector that is not finite numbers")
            if self._dim and len(vector) != self._dim:
                raise EmbeddingError(f"{self._url} answered {len(vector)} dimensions, expected {self._dim}")
            ordered[index] = unit(vector)
        if any(v is None for v in ordered):
            raise EmbeddingError(f"{self._url} answered the same index twice")
        return [v for v in ordered if v is not None]
