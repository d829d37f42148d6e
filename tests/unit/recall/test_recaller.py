"""The recaller embeds a query once even when it recalls it twice (session context does)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codememory.lexical import SparseEncoder
from codememory.recall import Recaller, RecallQuery
from codememory.vectorstore import EdgeVectorIndex


class CountingEmbedder:
    """A 4-dimensional stand-in for the model that counts its calls."""

    model_id = "counting"
    dim = 4

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls += 1
        return [(1.0, 0.0, 0.0, float(len(t) % 3)) for t in texts]


def test_the_same_text_is_embedded_once_per_recaller(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    embedder = CountingEmbedder()
    recaller = Recaller(index, embedder, SparseEncoder())
    query = RecallQuery(tenant="t", text="why do we round amounts")
    recaller.recall(query)
    recaller.recall(RecallQuery(tenant="t", text="why do we round amounts", types=("decision",)))
    assert embedder.calls == 1
    recaller.recall(RecallQuery(tenant="t", text="another question"))
    assert embedder.calls == 2
    index.close()
