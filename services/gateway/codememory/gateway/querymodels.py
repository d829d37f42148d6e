"""Which model the gateway embeds queries with: the configured one, or the one the live generation holds.

The configured model (``CODEMEMORY_GATEWAY_MODEL``, or ``CODEMEMORY_MODEL`` for every service) embeds
code-search queries, whose vectors the embed service writes with its configured model. Memory recall
uses the model of the memory generation in use, which a migration (``modelswitch.py``) may have
changed: after a restart the gateway loads that model again from the generation's record, whatever the
configuration says. The bundled MiniLM answers single queries through ONNX Runtime (``onnxquery.py``);
other models through their own runtime. MiniLM's queries keep PyTorch out of the gateway: the ONNX
graph is exported by a child process (``onnxexport``), and PyTorch is loaded only as the fallback
when that graph cannot be prepared, or with ``QUERY_RUNTIME=torch``.
"""

from __future__ import annotations

from codememory.embedding import (
    Embedder,
    ModelSpec,
    load_embedder,
    parse_model,
    query_embedder,
)
from codememory.gateway.indexes import IndexGenerations
from codememory.gateway.settings import GatewaySettings
from codememory.metrics import TimedEmbedder


def query_model(spec: ModelSpec, settings: GatewaySettings) -> Embedder:
    """Load ``spec`` for queries (blocking: seconds), timed as ``query``."""
    if spec.kind == "minilm":
        embedder: Embedder = query_embedder(
            settings.query_runtime, settings.model_cache, threads=settings.query_threads
        )
    else:
        embedder = load_embedder(spec, cache_dir=settings.model_cache, api_key=settings.api_key)
    return TimedEmbedder(embedder, "query")


def configured_query_model(settings: GatewaySettings) -> Embedder:
    return query_model(parse_model(settings.model), settings)


def memory_query_model(
    generations: IndexGenerations, configured: Embedder, settings: GatewaySettings
) -> Embedder:
    """The model of the generation in use: ``configured`` when it is that one, else loaded here."""
    active = generations.active
    if active.model_id == configured.model_id or not active.spec:
        return configured
    return query_model(parse_model(active.spec), settings)
