"""The ONNX query path must put a query where the PyTorch model puts it, without PyTorch in the process."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from codememory.embedding import EmbeddingError, MiniLmEmbedder
from codememory.embedding.onnxexport import onnx_model_file, reference_file
from codememory.embedding.onnxquery import OnnxQueryEmbedder, onnx_query_embedder, query_embedder

TEXTS = [
    "When did the team move the retry logic into the payment gateway?",
    "def validate_token(token: str) -> bool",
    "x",
    "a long question " * 200,  # past the 256-token limit: both sides truncate the same way
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def onnx(cache: Path) -> OnnxQueryEmbedder:
    return onnx_query_embedder(cache)


def _cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("text", TEXTS)
def test_a_query_lands_where_the_model_puts_it(
    onnx: OnnxQueryEmbedder, embedder: MiniLmEmbedder, text: str
) -> None:
    got = onnx.embed([text])[0]
    assert len(got) == onnx.dim == 384
    assert _cosine(got, embedder.embed([text])[0]) > 0.9999
    assert abs(_cosine(got, got) - 1.0) < 1e-5


def test_several_texts_are_embedded_one_by_one(onnx: OnnxQueryEmbedder, embedder: MiniLmEmbedder) -> None:
    together = onnx.embed(TEXTS[:2])
    assert together == [onnx.embed([t])[0] for t in TEXTS[:2]]
    assert all(_cosine(a, b) > 0.9999 for a, b in zip(together, embedder.embed(TEXTS[:2]), strict=True))
    assert onnx.embed([]) == []
    assert onnx.model_id == embedder.model_id


def test_the_export_is_made_once_and_reused(onnx: OnnxQueryEmbedder, cache: Path) -> None:
    made = onnx.model_file
    assert made == onnx_model_file(cache) and made.is_file()
    before = made.stat().st_mtime_ns, reference_file(made).stat().st_mtime_ns
    again = onnx_query_embedder(cache)
    assert again.model_file == made
    assert (made.stat().st_mtime_ns, reference_file(made).stat().st_mtime_ns) == before
    assert sorted(p.name for p in cache.iterdir()) == sorted([made.name, reference_file(made).name])


def test_the_serving_process_never_loads_pytorch(onnx: OnnxQueryEmbedder, cache: Path) -> None:
    """The point of the child export: a gateway's resident memory holds no PyTorch (~600 MB)."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from codememory.embedding.onnxquery import query_embedder
        model = query_embedder("onnx", Path({str(cache)!r}))
        assert len(model.embed(["where is the retry logic?"])[0]) == 384
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "sentence_transformers")))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_damaged_graph_is_a_typed_error(onnx: OnnxQueryEmbedder, tmp_path: Path) -> None:
    target = onnx_model_file(tmp_path)
    target.write_bytes(b"not an onnx graph")
    reference_file(target).write_bytes(reference_file(onnx.model_file).read_bytes())
    with pytest.raises(EmbeddingError, match="ONNX query model"):
        onnx_query_embedder(tmp_path)


def test_a_graph_that_disagrees_with_its_reference_is_refused(
    onnx: OnnxQueryEmbedder, tmp_path: Path
) -> None:
    target = onnx_model_file(tmp_path)
    target.write_bytes(onnx.model_file.read_bytes())
    reference = reference_file(onnx.model_file).read_text()
    reference_file(target).write_text(
        reference.replace('"vectors": [[', '"vectors": [[-', 1).replace("--", "")
    )
    with pytest.raises(EmbeddingError, match="disagree"):
        onnx_query_embedder(tmp_path)


def test_query_embedder_picks_the_runtime(embedder: MiniLmEmbedder, cache: Path) -> None:
    assert query_embedder("torch", cache, model=lambda: embedder) is embedder
    assert isinstance(query_embedder("onnx", cache, model=lambda: embedder), OnnxQueryEmbedder)
    with pytest.raises(EmbeddingError, match="query runtime"):
        query_embedder("tensorrt", cache, model=lambda: embedder)


def test_an_unusable_cache_falls_back_to_the_model(embedder: MiniLmEmbedder, tmp_path: Path) -> None:
    onnx_model_file(tmp_path).write_bytes(b"damaged")
    reference_file(onnx_model_file(tmp_path)).write_text("{}")
    assert query_embedder("onnx", tmp_path, model=lambda: embedder) is embedder  # slower, never wrong


def test_an_export_that_fails_is_a_typed_error_with_its_reason(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    with pytest.raises(EmbeddingError, match=r"cannot export the ONNX query model.*Error"):
        onnx_query_embedder(blocked)


def test_an_export_never_shows_a_partial_graph_and_two_at_once_agree(tmp_path: Path) -> None:
    """Two replicas starting together on a shared cache: an export writes a file of its own and renames
    it, so whoever looks at the graph's name sees nothing or the whole graph, never part of it."""
    graph = onnx_model_file(tmp_path)
    seen: set[int] = set()
    with ThreadPoolExecutor(2) as pool:
        exports = [pool.submit(onnx_query_embedder, tmp_path) for _ in range(2)]
        while not all(e.done() for e in exports):
            with contextlib.suppress(FileNotFoundError):
                seen.add(graph.stat().st_size)
            time.sleep(0.001)
        made = [e.result() for e in exports]
    assert seen == {graph.stat().st_size}  # seen, and never at another size
    assert made[0].embed(TEXTS[:1]) == made[1].embed(TEXTS[:1])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([graph.name, reference_file(graph).name])
