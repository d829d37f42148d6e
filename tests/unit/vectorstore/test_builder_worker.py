"""The ``ShardBuilder`` child's request loop (``serve``): it collects as a replay's fold does for as
long as it serves (``collector``) and restores the collector when it closes; what it wrote is flushed
by then (the process ends without the engine's close)."""

from __future__ import annotations

import gc
import io
from pathlib import Path

import msgspec
from vectorstore_support import DIM, FLOATS, KEYWORDS, pid, unit  # type: ignore[import-not-found]

from codememory.collector import REPLAY_THRESHOLDS
from codememory.lexical.pool import read_frame, write_frame
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint
from codememory.vectorstore.builder_worker import serve
from collector_support import ORDINARY, RecordingInput  # type: ignore[import-not-found]


def requests(*ops: tuple[str, tuple[object, ...]]) -> bytes:
    out = io.BytesIO()
    for op in ops:
        write_frame(out, msgspec.msgpack.encode(op))
    return out.getvalue()


def test_the_child_writes_collecting_rarely_and_restores_the_collector_at_close(
    tmp_path: Path, ordinary_collector: None
) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    points = [IndexPoint(id=pid(n), payload={"n": n}, dense=unit(n, 1, 0, 0)) for n in range(40)]
    source = RecordingInput(requests(("upsert", (points,)), ("count", (IndexFilter(),)), ("close", ())))
    out = io.BytesIO()
    assert serve(index, source, out, flush_points=0) == 0
    assert source.seen and all(t == REPLAY_THRESHOLDS and frozen > 0 for t, frozen in source.seen)
    assert gc.get_threshold() == ORDINARY and gc.get_freeze_count() == 0
    replies = io.BytesIO(out.getvalue())
    answers = [msgspec.msgpack.decode(frame) for frame in iter(lambda: read_frame(replies), None)]
    assert answers == [[True, None], [True, 40], [True, None]]
    index.close()  # what the child's end does: the shard was flushed, never closed, by ``serve``
    reopened = EdgeVectorIndex(tmp_path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    assert reopened.count(IndexFilter()) == 40
    reopened.close()


def test_a_shard_that_did_not_open_is_each_requests_answer(ordinary_collector: None) -> None:
    source = RecordingInput(requests(("count", (IndexFilter(),)), ("close", ())))
    out = io.BytesIO()
    assert serve(OSError("disk gone"), source, out, flush_points=0) == 0
    replies = io.BytesIO(out.getvalue())
    answers = [msgspec.msgpack.decode(frame) for frame in iter(lambda: read_frame(replies), None)]
    assert answers == [[False, ["OSError", "disk gone"]]] * 2
    assert gc.get_threshold() == ORDINARY
