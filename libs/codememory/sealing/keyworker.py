"""The key files of a large batch, made by a helper process: one round trip instead of thousands of
syscalls on a thread that shares the GIL.

Why: a bulk import makes a key per memory, and ``FileKeyStore.create`` is eight syscalls (a tombstone
check, a read, a private file written, linked and unlinked). Alone they take 0.15 s for 1,000 keys;
inside ``codememory up`` each syscall gives up the GIL and waits up to the switch interval (5 ms) to
take it back from the fold, the event loop and the embedder, so the same 1,000 took over a second and
sealing bounded the import. The helper is another interpreter running the same ``FileKeyStore`` code
on the same directory (creation is safe across processes: racing creators agree through ``link``),
so what it writes is exactly what this process would have written; it makes the batch durable
(``sync``) before it answers. What crosses the pipe is the stored entries (data keys wrapped by their
user's key, as on disk), never a clear key. If the helper cannot start or dies, the batch is made in
this process as before.

It also looks names up in batches (``lookup_many``: a replay opens a batch of thousands of records,
each two files looked at), so those syscalls too run in its process instead of taking turns with the
fold for the GIL; what comes back is again only stored entries and tombstones.

Protocol: msgpack frames, each a 4-byte big-endian length then the body; a request is
``["create", [[tenant, name, value], ...]]``, answered ``[value or None, ...]``, or
``["lookup", [[tenant, name], ...]]``, answered ``[value or true (destroyed) or false (never made), ...]``;
either may be answered ``{"error": text}``.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import msgspec

__all__ = ["KeyWorker", "KeyWorkerError"]

_HEADER = struct.Struct(">I")


class KeyWorkerError(RuntimeError):
    """The helper is gone or answered with an error: make the keys in this process."""


def _write(stream: IO[bytes], body: bytes) -> None:
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _read(stream: IO[bytes]) -> bytes | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    body = stream.read(size)
    return body if len(body) == size else None


class KeyWorker:
    """One helper process per key store, started at the first batch, used by one caller at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def create_many(self, items: Sequence[tuple[str, str, bytes]]) -> list[bytes | None]:
        answer = self._ask("create", [list(item) for item in items])
        return [value if isinstance(value, bytes) else None for value in answer]

    def lookup_many(self, items: Sequence[tuple[str, str]]) -> list[bytes | bool]:
        answer = self._ask("lookup", [list(item) for item in items])
        return [value if isinstance(value, bytes) else value is True for value in answer]

    def _ask(self, op: str, items: list[list[Any]]) -> list[object]:
        with self._lock:
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                _write(process.stdin, msgspec.msgpack.encode([op, items]))
                body = _read(process.stdout)
            except OSError as exc:
                self._stop()
                raise KeyWorkerError(f"the key helper is gone: {exc}") from exc
            if body is None:
                self._stop()
                raise KeyWorkerError("the key helper is gone")
        answer: Any = msgspec.msgpack.decode(body)
        if isinstance(answer, dict):
            raise KeyWorkerError(str(answer.get("error", "the key helper failed")))
        if not isinstance(answer, list) or len(answer) != len(items):
            raise KeyWorkerError("the key helper answered something else")
        return answer

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            command = [sys.executable, "-m", "codememory.sealing.keyworker", str(self.root)]
            try:
                self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            except OSError as exc:
                raise KeyWorkerError(f"cannot start the key helper: {exc}") from exc
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()  # the helper ends at the end of its input
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve(root: Path, requests: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's loop: create each batch's keys, make them durable, answer; until the input ends."""
    from codememory.sealing.filekeys import FileKeyStore

    store = FileKeyStore(root, worker=False)
    while (body := _read(requests)) is not None:
        try:
            op, raw = msgspec.msgpack.decode(body, type=tuple[str, msgspec.Raw])
            if op == "lookup":
                names = msgspec.msgpack.decode(raw, type=list[tuple[str, str]])
                _write(
                    answers, msgspec.msgpack.encode([store.lookup(tenant, name) for tenant, name in names])
                )
                continue
            if op != "create":
                raise ValueError(f"no such request: {op!r}")
            items = msgspec.msgpack.decode(raw, type=list[tuple[str, str, bytes]])
            values = [store.create(tenant, name, value) for tenant, name, value in items]
            store.sync()
            _write(answers, msgspec.msgpack.encode(values))
        except Exception as exc:  # answered, not fatal: the caller makes the batch itself
            _write(answers, msgspec.msgpack.encode({"error": f"{type(exc).__name__}: {exc}"}))


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.stdin.buffer, sys.stdout.buffer)
