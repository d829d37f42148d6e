"""The gateway's settings, from ``CODEMEMORY_GATEWAY_<KEY>`` or ``CODEMEMORY_<KEY>``.

``tokens`` maps bearer tokens to tenants (``token=tenant,...``); it is the only source of a caller's
tenant; ``admin_tokens`` (``CODEMEMORY_GATEWAY_ADMIN_TOKENS``, comma-separated) may also call Status and
Replay. ``reflection`` is off unless ``CODEMEMORY_GATEWAY_REFLECTION=1``. ``qdrant_url`` empty means
Qdrant Edge on disk under ``data_dir`` (the embedded default). ``weights``
(``dense=0.45,lexical=0.35,recency=0.08,importance=0.07,scope=0.05,link=0.1,recency_half_life_days=14``)
sets the hybrid scoring. ``stall_after_s``: health turns NOT_SERVING when a projection is behind LOG
and has not moved for that long (or LOG cannot be reached for that long). ``reuse_port``: replicas on
one host may listen on the same address (SO_REUSEPORT, the kernel spreads connections); ``codememory up``
turns it off so a second stack never shares a port (and its tenants) with the first.
``rebuild_indexing_threads``: threads a replay's HNSW build may use (0, the default: Qdrant Edge's
choice, one on a 2-core machine); the live shard's own builds keep the engine's choice.
``shard_layout`` (``CODEMEMORY_GATEWAY_SHARD_LAYOUT``: ``int8``, the default, ``ram`` or ``disk``):
where a new memory shard keeps its parts (``codememory.vectorstore.layout``: ``int8`` keeps int8 copies
of the vectors in RAM and their originals on disk, ``ram`` loads the originals, ``disk`` keeps the
rest on disk too); it applies to generations built from then on (a replay, a model migration), an
existing one keeps the layout it was built with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codememory.embedding import DEFAULT_MODEL, EmbeddingError, parse_model
from codememory.embedding.onnxquery import QUERY_RUNTIMES
from codememory.recall import Weights, parse_weights
from codememory.recall.codeaware import CodeWeights, parse_code_weights
from codememory.settings import (
    SettingsError,
    default_home,
    env_bool,
    env_float,
    env_int,
    env_str,
    parse_tokens,
    stream_replicas,
)
from codememory.vectorstore import DEFAULT_LAYOUT, DenseSearch, ShardLayout, layout_named

SERVICE = "gateway"


@dataclass(frozen=True, kw_only=True)
class GatewaySettings:
    nats_url: str = "nats://127.0.0.1:4222"
    listen: str = "127.0.0.1:50051"
    data_dir: Path = field(default_factory=lambda: default_home() / "gateway")
    tokens: Mapping[str, str] = field(default_factory=dict)
    admin_tokens: frozenset[str] = frozenset()  # may call Status and Replay (every tenant's state)
    qdrant_url: str = ""
    reflection: bool = False  # gRPC server reflection: off unless configured
    tls_cert: str = ""  # PEM certificate chain and key files: gRPC over TLS only (deployments: a Secret)
    tls_key: str = ""
    health_listen: str = ""  # a plain listener for grpc.health.v1 only (probes of a TLS gateway); "": none
    write_wait_ms: int = 5000
    erase_hooks_wait_s: float = 30.0  # erase of a user or session: ingest takes what HOOKS holds first
    context_budget_tokens: int = 1500
    weights: Weights = field(default_factory=Weights)
    code_weights: CodeWeights = field(default_factory=CodeWeights)  # recall with a working set
    # recall with a working set re-ranks at least this many hits by their code (and 3x the limit; 50:
    # as many as each search of the recaller brings): the code parts lift only what they see (0: 3x)
    code_pool: int = 50
    optimize_after_events: int = 2000
    # an import past this many memories is redacted in the intake's worker processes (``importwork``)
    import_workers_after: int = 5000
    optimize_every_s: float = 5.0
    centrality_every_s: float = 2.0
    # survivors of each older collection frozen (``collector.ServingCollector``), the whole heap walked
    # once this often to reclaim a cycle of frozen objects; 0: CPython's default collector
    gc_thaw_s: float = 600.0
    log_level: str = "info"
    query_runtime: str = "onnx"  # how a query is embedded: "onnx" (ONNX Runtime) or "torch"
    model_cache: Path = field(default_factory=lambda: default_home() / "models")
    query_threads: int = 2  # ONNX Runtime threads per query (2 measured 6.0 -> 3.8 ms p50 on 2 cores)
    payload_cache: int = 20_000  # memory payloads kept in process for recall (Qdrant Edge only; 0: off)
    rebuild_indexing_threads: int = 0  # threads of a replay's HNSW build (0: Qdrant Edge's choice)
    # each dense search (Qdrant Edge): ``HNSW_EF``, the candidates an HNSW search keeps (0: the engine's
    # default, 100); ``RESCORE``, an int8 shard's best candidates rescored with the float32 originals
    # read from disk (exact cosine; without: 0.83-0.93x the recall time at a million memories, 97% of
    # top 10s alike: ``vectorstore.layout``)
    dense_search: DenseSearch = field(default_factory=DenseSearch)
    shard_layout: ShardLayout = field(default_factory=lambda: layout_named(DEFAULT_LAYOUT))  # new shards'
    stall_after_s: float = 30.0  # behind LOG without progress this long: NOT_SERVING, follower restarted
    reuse_port: bool = True  # replicas on one host share the listen address
    stream_replicas: int = 1  # replicas of the streams this service creates when missing (3 on a cluster)
    model: str = DEFAULT_MODEL  # embedding model spec (codememory.embedding.models) for queries
    api_key: str = field(default="", repr=False)  # an OpenAI-compatible endpoint's key (never logged)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewaySettings:
        home = default_home(environ)
        return cls(
            nats_url=env_str(SERVICE, "nats_url", cls.nats_url, environ),
            listen=env_str(SERVICE, "listen", cls.listen, environ),
            data_dir=Path(env_str(SERVICE, "data_dir", str(home / "gateway"), environ)),
            tokens=parse_tokens(env_str(SERVICE, "tokens", "", environ)),
            admin_tokens=frozenset(
                t.strip() for t in env_str(SERVICE, "admin_tokens", "", environ).split(",") if t.strip()
            ),
            qdrant_url=env_str(SERVICE, "qdrant_url", "", environ),
            reflection=env_bool(SERVICE, "reflection", False, environ),
            tls_cert=env_str(SERVICE, "tls_cert", "", environ),
            tls_key=env_str(SERVICE, "tls_key", "", environ),
            health_listen=env_str(SERVICE, "health_listen", "", environ),
            write_wait_ms=env_int(SERVICE, "write_wait_ms", cls.write_wait_ms, environ),
            erase_hooks_wait_s=env_float(SERVICE, "erase_hooks_wait_s", cls.erase_hooks_wait_s, environ),
            context_budget_tokens=env_int(
                SERVICE, "context_budget_tokens", cls.context_budget_tokens, environ
            ),
            optimize_after_events=env_int(
                SERVICE, "optimize_after_events", cls.optimize_after_events, environ
            ),
            optimize_every_s=env_float(SERVICE, "optimize_every_s", cls.optimize_every_s, environ),
            import_workers_after=env_int(SERVICE, "import_workers_after", cls.import_workers_after, environ),
            centrality_every_s=env_float(SERVICE, "centrality_every_s", cls.centrality_every_s, environ),
            gc_thaw_s=_gc_thaw(env_float(SERVICE, "gc_thaw_s", cls.gc_thaw_s, environ)),
            weights=parse_weights(env_str(SERVICE, "weights", "", environ)),
            code_weights=parse_code_weights(env_str(SERVICE, "code_weights", "", environ)),
            code_pool=_code_pool(env_int(SERVICE, "code_pool", cls.code_pool, environ)),
            log_level=env_str(SERVICE, "log_level", cls.log_level, environ),
            query_runtime=_runtime(env_str(SERVICE, "query_runtime", cls.query_runtime, environ)),
            model_cache=Path(env_str(SERVICE, "model_cache", str(home / "models"), environ)),
            query_threads=_threads(env_int(SERVICE, "query_threads", cls.query_threads, environ)),
            payload_cache=_cache_size(env_int(SERVICE, "payload_cache", cls.payload_cache, environ)),
            rebuild_indexing_threads=_indexing_threads(
                env_int(SERVICE, "rebuild_indexing_threads", cls.rebuild_indexing_threads, environ)
            ),
            dense_search=DenseSearch(
                hnsw_ef=_hnsw_ef(env_int(SERVICE, "hnsw_ef", _SEARCH_DEFAULTS.hnsw_ef, environ)),
                rescore=env_bool(SERVICE, "rescore", _SEARCH_DEFAULTS.rescore, environ),
            ),
            shard_layout=_layout(env_str(SERVICE, "shard_layout", DEFAULT_LAYOUT, environ)),
            stall_after_s=_stall(env_float(SERVICE, "stall_after_s", cls.stall_after_s, environ)),
            reuse_port=env_bool(SERVICE, "reuse_port", cls.reuse_port, environ),
            stream_replicas=stream_replicas(environ),
            model=_model(env_str(SERVICE, "model", DEFAULT_MODEL, environ)),
            api_key=env_str(SERVICE, "api_key", "", environ),
        )


def _model(value: str) -> str:
    try:
        parse_model(value)
    except EmbeddingError as exc:
        raise SettingsError(f"CODEMEMORY_GATEWAY_MODEL: {exc}") from exc
    return value


def _code_pool(value: int) -> int:
    if not 0 <= value <= 500:
        raise SettingsError(f"CODEMEMORY_GATEWAY_CODE_POOL must be within 0-500, got {value}")
    return value


def _stall(value: float) -> float:
    if value <= 0:
        raise SettingsError(f"CODEMEMORY_GATEWAY_STALL_AFTER_S must be above 0, got {value}")
    return value


def _cache_size(value: int) -> int:
    if value < 0:
        raise SettingsError(f"CODEMEMORY_GATEWAY_PAYLOAD_CACHE must be 0 or more, got {value}")
    return value


def _indexing_threads(value: int) -> int:
    if value < 0:
        raise SettingsError(f"CODEMEMORY_GATEWAY_REBUILD_INDEXING_THREADS must be 0 or more, got {value}")
    return value


def _gc_thaw(value: float) -> float:
    if value < 0:
        raise SettingsError(
            f"CODEMEMORY_GATEWAY_GC_THAW_S must be 0 (the default collector) or more, got {value}"
        )
    return value


_SEARCH_DEFAULTS = DenseSearch()  # what an unset HNSW_EF or RESCORE means: the struct's own defaults


def _hnsw_ef(value: int) -> int:
    if not 0 <= value <= 4096:
        raise SettingsError(f"CODEMEMORY_GATEWAY_HNSW_EF must be between 0 and 4096, got {value}")
    return value


def _layout(value: str) -> ShardLayout:
    try:
        return layout_named(value)
    except ValueError as exc:
        raise SettingsError(f"CODEMEMORY_GATEWAY_SHARD_LAYOUT: {exc}") from exc


def _threads(value: int) -> int:
    if not 1 <= value <= 64:
        raise SettingsError(f"CODEMEMORY_GATEWAY_QUERY_THREADS must be between 1 and 64, got {value}")
    return value


def _runtime(value: str) -> str:
    if value not in QUERY_RUNTIMES:
        raise SettingsError(f"CODEMEMORY_GATEWAY_QUERY_RUNTIME must be one of {', '.join(QUERY_RUNTIMES)}")
    return value
