"""The embed service's settings, from ``CODEMEMORY_EMBED_<KEY>`` or ``CODEMEMORY_<KEY>``.

``model`` (``CODEMEMORY_EMBED_MODEL`` or ``CODEMEMORY_MODEL``): the model every memory and symbol is
embedded with, a spec of ``codememory.embedding.models`` (the bundled all-MiniLM-L6-v2 by default).
``model_cache``: where models that must be unpacked or exported are kept. ``runtime`` (MiniLM only):
``torch`` (default), ``onnx`` (the same vectors through ONNX Runtime) or ``onnx-int8`` (int8 weights,
faster, vectors within a cosine of 0.98; see ``embedding/onnxbatch.py``). ``forward_batch`` (16):
texts per forward pass of a local model (``embedding.local.FORWARD_BATCH``; ``batch`` is how many LOG
events a fetch takes, and the texts per request to an endpoint). ``api_key``: the key of an
OpenAI-compatible endpoint, sent in a header only (never logged; from the environment or a Secret).
``symbol_nice`` (0-19): how far below the event path symbols are embedded (``priority.py``; 0: not).
``memory_nice`` (0-19, 0 by default): the same for memory texts; 19 let a 5,000-memory import reach
967 memories/s against 835 (the fold first, the vectors after: ``bench_import_rate``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from codememory.embedding import DEFAULT_MODEL, EmbeddingError, parse_model
from codememory.embedding.local import FORWARD_BATCH
from codememory.embedding.onnxbatch import BATCH_RUNTIMES
from codememory.settings import ConsumerSettings, SettingsError, default_home, env_int, env_str

SERVICE = "embed"


@dataclass(frozen=True, kw_only=True)
class EmbedSettings(ConsumerSettings):
    model: str = DEFAULT_MODEL
    model_cache: Path = field(default_factory=lambda: default_home() / "models")
    api_key: str = field(default="", repr=False)
    runtime: str = "torch"
    forward_batch: int = FORWARD_BATCH  # texts per pass of a local model (``embedding.local``)
    symbol_nice: int = 10  # symbols are embedded this many nice steps below the event path (priority.py)
    memory_nice: int = 0  # memory texts likewise (0: at the event path's priority)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbedSettings:
        base = cls.load(SERVICE, environ)
        model = env_str(SERVICE, "model", DEFAULT_MODEL, environ)
        try:
            parse_model(model)
        except EmbeddingError as exc:
            raise SettingsError(f"CODEMEMORY_EMBED_MODEL: {exc}") from exc
        return replace(
            base,
            model=model,
            model_cache=Path(env_str(SERVICE, "model_cache", str(default_home(environ) / "models"), environ)),
            api_key=env_str(SERVICE, "api_key", "", environ),
            runtime=_runtime(env_str(SERVICE, "runtime", cls.runtime, environ)),
            forward_batch=_forward_batch(env_int(SERVICE, "forward_batch", cls.forward_batch, environ)),
            symbol_nice=_nice(env_int(SERVICE, "symbol_nice", cls.symbol_nice, environ)),
            memory_nice=_nice(env_int(SERVICE, "memory_nice", cls.memory_nice, environ), "MEMORY"),
        )


def _forward_batch(value: int) -> int:
    if not 1 <= value <= 1024:
        raise SettingsError(f"CODEMEMORY_EMBED_FORWARD_BATCH must be between 1 and 1024, got {value}")
    return value


def _nice(value: int, which: str = "SYMBOL") -> int:
    if not 0 <= value <= 19:
        raise SettingsError(f"CODEMEMORY_EMBED_{which}_NICE must be between 0 and 19, got {value}")
    return value


def _runtime(value: str) -> str:
    if value not in BATCH_RUNTIMES:
        raise SettingsError(
            f"CODEMEMORY_EMBED_RUNTIME must be one of {', '.join(BATCH_RUNTIMES)}, got {value!r}"
        )
    return value
