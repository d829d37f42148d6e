"""A ``TermsPool`` worker answers with this process's vectors, and collects as a replay's fold does
while it reads (``collector``), restoring the collector when its input ends."""

from __future__ import annotations

import gc
import io
import sys
from types import SimpleNamespace

import msgspec
import pytest

from codememory.collector import REPLAY_THRESHOLDS
from codememory.lexical import SparseEncoder, SparseVec
from codememory.lexical.pool import encode_documents, read_frame, write_frame
from codememory.lexical.worker import main
from collector_support import ORDINARY, RecordingInput  # type: ignore[import-not-found]


def frames(*batches: list[str]) -> bytes:
    out = io.BytesIO()
    for batch in batches:
        write_frame(out, msgspec.msgpack.encode(batch))
    return out.getvalue()


def test_the_worker_encodes_as_this_process_and_collects_rarely_only_while_it_reads(
    ordinary_collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches = [["validateToken in src/auth/jwt_utils.py", "plain prose"], ["ÜberCache.get_or_create"]]
    source, out = RecordingInput(frames(*batches)), io.BytesIO()
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=source))
    monkeypatch.setattr(sys, "stdout", SimpleNamespace(buffer=out))
    assert main(["1.2", "0.75", "256.0", "english"]) == 0
    assert source.seen and all(t == REPLAY_THRESHOLDS and frozen > 0 for t, frozen in source.seen)
    assert gc.get_threshold() == ORDINARY and gc.get_freeze_count() == 0
    answers = io.BytesIO(out.getvalue())
    decoder = msgspec.msgpack.Decoder(list[SparseVec])
    encoder = SparseEncoder(k=1.2, b=0.75, avg_len=256.0, language="english")
    for batch in batches:
        frame = read_frame(answers)
        assert frame is not None and decoder.decode(frame) == encode_documents(encoder, batch)
    assert read_frame(answers) is None
