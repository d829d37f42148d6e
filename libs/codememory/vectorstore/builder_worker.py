"""A ``ShardBuilder`` child: owns one Qdrant Edge shard and applies the requests read from stdin.

Run as ``python -m codememory.vectorstore.builder_worker PATH DENSE_SIZE KEYWORD_FIELDS FLOAT_FIELDS
[THREADS [LAYOUT [FLUSH_POINTS]]]`` (fields comma-separated; ``LAYOUT`` a ``ShardLayout`` as JSON). Frames
(``lexical.pool``) are msgpack: ``(op, args)`` in, ``(True, result)`` or ``(False, (error kind,
message))`` out, one reply per request, in order. Anything the engine prints goes to stderr: stdout
is the pipe.

``close`` (or the end of stdin) flushes the shard and ends the process without the engine's close: a
flushed shard is whole on disk (it is what a crash after the flush leaves, and opens with the same
digest), while the close spent 0.22-0.34 s of a replay's path to serving on freeing what the end of
the process frees at once (bench_replay_serving's tail, 50,000 points).

An upsert hands the engine each payload value most points of the batch share (the tenant, the
state, empty fields) once, over their ids, instead of once per point (``vectorstore.shared``).

The child flushes while it waits: once ``FLUSH_POINTS`` points are written and not flushed and no
request is waiting on the pipe, it flushes them. A replay's rebuild writes 50,000 points in upserts
of ~2,500 with the child idle about a third of the time between them, then waits for one flush of
everything (0.96 s at 50,000 points, on the path to serving); flushed while idle, the last flush
holds only what came since (bench_replay_serving; what a flush costs grows with what it writes).
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NoReturn

import msgspec

from codememory.collector import fewer_collections
from codememory.lexical import SparseVec
from codememory.lexical.pool import read_frame, write_frame
from codememory.vectorstore.digest import index_digest
from codememory.vectorstore.edge import EdgeVectorIndex
from codememory.vectorstore.errors import PointNotFoundError
from codememory.vectorstore.layout import ShardLayout
from codememory.vectorstore.port import IndexFilter, IndexPoint
from codememory.vectorstore.shared import split_shared

FLUSH_POINTS = 10_000  # written and not flushed: flushed once the pipe is idle (see module)

_encoder = msgspec.msgpack.Encoder()
_request = msgspec.msgpack.Decoder(tuple[str, msgspec.Raw])
_ARGS: dict[str, msgspec.msgpack.Decoder[Any]] = {
    "upsert": msgspec.msgpack.Decoder(tuple[list[IndexPoint]]),
    "get": msgspec.msgpack.Decoder(tuple[list[str], bool]),
    "scroll": msgspec.msgpack.Decoder(tuple[IndexFilter, bool]),
    "search_dense": msgspec.msgpack.Decoder(tuple[list[float], IndexFilter, int, bool, bool]),
    "search_sparse": msgspec.msgpack.Decoder(tuple[SparseVec, IndexFilter, int, bool]),
    "count": msgspec.msgpack.Decoder(tuple[IndexFilter]),
    "set_dense": msgspec.msgpack.Decoder(tuple[str, list[float]]),
    "replace_sparse": msgspec.msgpack.Decoder(tuple[str, SparseVec]),
    "set_payload": msgspec.msgpack.Decoder(tuple[str, dict[str, Any]]),
    "delete": msgspec.msgpack.Decoder(tuple[list[str]]),
    "flush": msgspec.msgpack.Decoder(tuple[()]),
    "optimize": msgspec.msgpack.Decoder(tuple[()]),
    "digest": msgspec.msgpack.Decoder(tuple[()]),
    "close": msgspec.msgpack.Decoder(tuple[()]),
}


def _operations(index: EdgeVectorIndex) -> dict[str, Callable[..., Any]]:
    return {
        "upsert": lambda points: index.upsert_shared(*split_shared(points)),
        "get": index.get,
        "scroll": lambda flt, with_vectors: list(index.scroll(flt, 1024, with_vectors)),
        "search_dense": index.search_dense,
        "search_sparse": index.search_sparse,
        "count": index.count,
        "set_dense": index.set_dense,
        "replace_sparse": index.replace_sparse,
        "set_payload": index.set_payload,
        "delete": index.delete,
        "flush": index.flush,
        "optimize": index.optimize,
        "digest": lambda: index_digest(index, IndexFilter()),  # every point: a replay's check
        "close": index.flush,  # the process ends after its reply (see module)
    }


def _fields(text: str) -> tuple[str, ...]:
    return tuple(f for f in text.split(",") if f)


def _idle(source: IO[bytes]) -> bool:
    """Nothing readable on the pipe. A small request read ahead into the reader's buffer is not seen:
    it waits for the flush, which changes nothing but when it is answered."""
    try:
        readable, _, _ = select.select([source], [], [], 0)
    except (OSError, ValueError, io.UnsupportedOperation):  # not a pipe: flushed when asked only
        return False
    return not readable


def main(argv: list[str]) -> NoReturn:
    path, dense_size, keywords, floats, *rest = argv
    threads = int(rest[0]) if rest else 0
    layout = msgspec.json.decode(rest[1], type=ShardLayout) if len(rest) > 1 else ShardLayout()
    flush_points = int(rest[2]) if len(rest) > 2 else FLUSH_POINTS  # 0: only when asked
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt the replies
    try:
        index: EdgeVectorIndex | Exception = EdgeVectorIndex(
            Path(path),
            int(dense_size),
            keyword_fields=_fields(keywords),
            float_fields=_fields(floats),
            indexing_threads=threads,
            layout=layout,
        )
    except Exception as exc:  # reported to every request, so the parent says why
        index = exc
    code = serve(index, sys.stdin.buffer, out, flush_points)
    out.flush()
    sys.stderr.flush()
    os._exit(code)  # without the engine's close or the interpreter's teardown of the shard (see module)


def serve(index: EdgeVectorIndex | Exception, source: IO[bytes], out: IO[bytes], flush_points: int) -> int:
    """The requests on ``source`` applied to ``index`` (or each answered with why it did not open),
    the collector as in a replay's fold all the while (``collector``): a child lives for one rebuild.
    Returns after ``close`` or the end of ``source`` with the shard flushed, not closed (see module)."""
    operations = _operations(index) if isinstance(index, EdgeVectorIndex) else {}
    with fewer_collections():
        unflushed = 0  # points written since the last flush
        while (frame := read_frame(source)) is not None:
            op, raw = _request.decode(frame)
            try:
                if isinstance(index, Exception):
                    raise index
                args = _ARGS[op].decode(raw)
                result = operations[op](*args)
                reply = _encoder.encode((True, result))
                unflushed = 0 if op in ("flush", "optimize", "close") else unflushed
                unflushed += len(args[0]) if op == "upsert" else 0
            except PointNotFoundError as exc:
                reply = _encoder.encode((False, ("PointNotFoundError", exc.point_id)))
            except Exception as exc:
                reply = _encoder.encode((False, (type(exc).__name__, str(exc))))
            write_frame(out, reply)
            if op == "close":
                return 0
            if 0 < flush_points <= unflushed and isinstance(index, EdgeVectorIndex) and _idle(source):
                unflushed = 0
                with contextlib.suppress(Exception):  # the flush (or close) the parent asks for reports it
                    index.flush()
    if isinstance(index, EdgeVectorIndex):
        index.flush()
    return 0


if __name__ == "__main__":
    main(sys.argv[1:])
