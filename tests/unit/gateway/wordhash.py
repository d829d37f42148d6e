"""A stand-in embedder for the gateway's domain tests: bag of hashed words, normalised.

Similar word sets give similar vectors, which is all these tests need; the real model is exercised by
the embedding and end-to-end tests.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

DIM = 16


class WordHashEmbedder:
    model_id = "test/word-hash"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        out = []
        for text in texts:
            v = [0.0] * DIM
            for word in text.lower().split():
                v[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append(tuple(x / norm for x in v))
        return out
