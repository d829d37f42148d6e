"""Lexical vectors of many documents at once, in worker processes: what a replay spends its time on.

A memory's sparse vector is ``encode_document(code_terms(text))``: splitting identifiers is Python
(regexes and a loop per word) and costs more than everything else a replay does for a memory except
handing its payload to the index. The fold itself must run in LOG order in one process, but the
terms of the memories a batch creates do not depend on each other, so the fold hands out
placeholders (``DeferredTerms``) and the batch's texts are encoded together afterwards, split over
worker processes (``TermsPool``). Workers return the vectors as msgpack, which this process decodes
in C. A worker's encoder has the same settings as the caller's, so a vector is the same wherever it
was computed: the rebuilt index's digest equals the live one.

Workers are plain subprocesses (``python -m codememory.lexical.worker``), never forks (the gateway
runs gRPC and NATS threads) and not ``multiprocessing`` (which imports the caller's main module in
every worker): they start in a fraction of a second, speak length-prefixed msgpack over their pipes,
and import nothing but the lexical code. A small batch is encoded in this process: a round trip costs
more than it saves below ``min_batch`` texts. A worker that fails is logged and its texts encoded
here instead (the vectors are the same), so a broken worker slows a replay but never poisons events.
"""

from __future__ import annotations

import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import IO

import msgspec
import structlog

from codememory.lexical.sparse import SparseEncoder, SparseVec
from codememory.lexical.terms import code_terms

__all__ = ["DeferredTerms", "TermsPool", "encode_documents", "read_frame", "write_frame"]

log = structlog.get_logger(__name__)
_vectors = msgspec.msgpack.Decoder(list[SparseVec])
_texts = msgspec.msgpack.Encoder()
_LENGTH = struct.Struct("<I")


def encode_documents(encoder: SparseEncoder, texts: Sequence[str]) -> list[SparseVec]:
    """The sparse vector of each text, as the memory projection computes it (code terms, then BM25)."""
    return [encoder.encode_document(code_terms(text)) for text in texts]


def write_frame(out: IO[bytes], data: bytes) -> None:
    out.write(_LENGTH.pack(len(data)))
    out.write(data)
    out.flush()


def read_frame(source: IO[bytes]) -> bytes | None:
    """One frame, or ``None`` at the end of the stream."""
    head = source.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = source.read(size)
    if len(data) < size:
        raise EOFError(f"frame cut short: {len(data)} of {size} bytes")
    return data


class TermsPool:
    """``encode_documents`` over ``workers`` processes; ``close`` when done (or use ``with``).

    One batch at a time (the fold is sequential): not safe to call from two threads at once."""

    def __init__(self, encoder: SparseEncoder, workers: int = 2, *, min_batch: int = 64) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.encoder = encoder
        self.min_batch = min_batch
        settings = [str(encoder.k), str(encoder.b), str(encoder.avg_len), encoder.language]
        command = [sys.executable, "-m", "codememory.lexical.worker", *settings]
        self._workers: list[subprocess.Popen[bytes]] = [
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(workers)
        ]

    @property
    def workers(self) -> int:
        return len(self._workers)

    def encode_documents(self, texts: Sequence[str]) -> list[SparseVec]:
        if len(texts) < self.min_batch or not self._workers:
            return encode_documents(self.encoder, texts)
        size = -(-len(texts) // len(self._workers))
        slices = [list(texts[i : i + size]) for i in range(0, len(texts), size)]
        busy = self._workers[: len(slices)]
        sent = [self._send(worker, part) for worker, part in zip(busy, slices, strict=True)]
        out: list[SparseVec] = []
        for worker, part, ok in zip(busy, slices, sent, strict=True):
            vectors = self._receive(worker) if ok else None
            out.extend(vectors if vectors is not None else encode_documents(self.encoder, part))
        return out

    def _send(self, worker: subprocess.Popen[bytes], texts: list[str]) -> bool:
        try:
            assert worker.stdin is not None
            write_frame(worker.stdin, _texts.encode(texts))
        except OSError as exc:
            return self._lost(worker, exc)
        return True

    def _receive(self, worker: subprocess.Popen[bytes]) -> list[SparseVec] | None:
        try:
            assert worker.stdout is not None
            data = read_frame(worker.stdout)
            if data is None:
                raise EOFError("the worker closed its output")
            return _vectors.decode(data)
        except (OSError, EOFError, msgspec.DecodeError) as exc:
            self._lost(worker, exc)
            return None

    def _lost(self, worker: subprocess.Popen[bytes], exc: BaseException) -> bool:
        log.warning("terms_worker_lost", pid=worker.pid, error=repr(exc))
        self._workers.remove(worker)
        worker.kill()
        worker.wait()
        return False

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            if worker.stdin is not None:
                worker.stdin.close()  # the worker ends at the end of its input
        for worker in workers:
            try:
                worker.wait(timeout=5)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
            if worker.stdout is not None:
                worker.stdout.close()

    def __enter__(self) -> TermsPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DeferredTerms:
    """Stands in for ``encode`` while a batch is folded: each call records the text and returns a
    placeholder (a vector with one negative index, which BM25 never produces); ``resolve`` then
    encodes the texts whose placeholders are still held, all at once, and gives back the real ones."""

    def __init__(self) -> None:
        self._texts: list[str] = []

    def __call__(self, text: str) -> SparseVec:
        self._texts.append(text)
        return SparseVec((-len(self._texts),), (0.0,))

    @staticmethod
    def is_placeholder(vector: SparseVec | None) -> bool:
        return vector is not None and len(vector.indices) == 1 and vector.indices[0] < 0

    def resolve(
        self, held: Sequence[SparseVec | None], encode: Callable[[Sequence[str]], list[SparseVec]]
    ) -> list[SparseVec | None]:
        """``held`` with every placeholder replaced by the vector of its text (others unchanged)."""
        wanted = sorted({-v.indices[0] - 1 for v in held if v is not None and self.is_placeholder(v)})
        encoded = dict(zip(wanted, encode([self._texts[i] for i in wanted]), strict=True))
        return [encoded[-v.indices[0] - 1] if v is not None and self.is_placeholder(v) else v for v in held]
