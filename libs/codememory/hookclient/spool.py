"""A local JSON-lines spool for hook messages that could not be published.

The hook must never lose an event and never block the agent, so when NATS is down (or slow) the
message goes to ``<home>/spool/hooks.jsonl`` and a later hook process (or ``codememory up``)
publishes it. Each line carries the message's original ``msg_id``: re-publishing a message that
was in fact stored is deduplicated by JetStream, so the spool only has to guarantee at-least-once.

Many hook processes run at once, so every access holds an exclusive ``flock`` on a sibling lock
file. Appenders open the spool only after taking the lock; the drainer rewrites it with
``os.replace`` under the same lock, so no append can land in a replaced (orphaned) file.
"""

from __future__ import annotations

import fcntl
import json
import os
import time

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["OK", "REJECT", "RETRY", "DrainResult", "Spool"]

OK, RETRY, REJECT = "ok", "retry", "reject"
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

Record = dict[str, object]


class DrainResult:
    """What a drain did: spooled messages published, lines left, and whether the tail was acked."""

    __slots__ = ("flushed", "rejected", "remaining", "tail_sent")

    def __init__(self, flushed: int, remaining: int, rejected: int, tail_sent: bool) -> None:
        self.flushed = flushed
        self.remaining = remaining
        self.rejected = rejected
        self.tail_sent = tail_sent

    def __repr__(self) -> str:
        return (
            f"DrainResult(flushed={self.flushed}, remaining={self.remaining}, "
            f"rejected={self.rejected}, tail_sent={self.tail_sent})"
        )


def _encode(record: Record) -> bytes:
    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        line = json.dumps(record, separators=(",", ":")).encode()
    return line + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Spool:
    """The spool file at ``path`` (``<path>.lock`` guards it, ``<path>.rejected`` keeps poison)."""

    def __init__(self, path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes

    def has_pending(self) -> bool:
        try:
            return os.stat(self.path).st_size > 0
        except OSError:
            return False

    def append(self, records: Sequence[Record], lock_timeout: float = 3.0) -> bool:
        """Append records as lines; False (nothing written) if the spool is over ``max_bytes``."""
        lock_fd = self._lock(blocking_for=lock_timeout)  # -1: could not lock; append anyway
        try:
            return self._append_locked([_encode(r) for r in records])
        finally:
            self._unlock(lock_fd)

    def drain(
        self,
        send: Callable[[Sequence[Record]], list[str]],
        *,
        deadline: float,
        max_messages: int = 1_000_000,
        batch: int = 64,
        tail: Sequence[Record] = (),
        lock_wait: float = 0.0,
    ) -> DrainResult | None:
        """Publish spooled lines in order, then ``tail``; keep whatever was not acked, in order.

        ``send`` publishes a batch and returns one of OK / RETRY / REJECT per record. Draining
        stops at the first RETRY, at ``deadline`` or after ``max_messages`` spooled lines; the
        unsent rest (tail included, so order holds) stays in the spool. Returns None without
        doing anything when another process holds the spool for longer than ``lock_wait`` seconds.
        """
        lock_fd = self._lock(blocking_for=lock_wait)
        if lock_fd < 0:
            return None
        try:
            lines = self._read_lines()
            items: list[tuple[bytes, Record | None]] = [(line, _decode(line)) for line in lines]
            items.extend((_encode(r), r) for r in tail)
            keep: list[bytes] = []
            poison: list[bytes] = []
            flushed, tail_acked, index, stopped = 0, 0, 0, False
            while index < len(items):
                if stopped or time.monotonic() >= deadline or (index < len(lines) and index >= max_messages):
                    keep.extend(line for line, _ in items[index:])
                    break
                end = index + batch if index >= len(lines) else min(index + batch, max_messages)
                chunk = items[index:end]
                good = [(i, rec) for i, (_line, rec) in enumerate(chunk) if rec is not None]
                try:
                    answers = send([rec for _, rec in good])
                    outcomes = dict(zip((i for i, _ in good), answers, strict=True))
                except Exception:  # a broken sender must not lose the batch: keep it for later
                    outcomes = {i: RETRY for i, _ in good}
                for i, (line, _rec) in enumerate(chunk):
                    outcome = outcomes.get(i, REJECT)  # undecodable lines are poison
                    if outcome == OK:
                        if index + i >= len(lines):
                            tail_acked += 1
                        else:
                            flushed += 1
                    elif outcome == REJECT:
                        poison.append(line)
                    else:
                        keep.append(line)
                        stopped = True
                index = end
            if poison:
                self._append_rejected(poison)
            if len(keep) >= len(lines) and keep[: len(lines)] == lines:
                if len(keep) > len(lines):  # nothing left the spool: only the tail joins it
                    self._append_locked(keep[len(lines) :], enforce_limit=False)
            else:
                self._rewrite(keep)
            return DrainResult(flushed, len(keep), len(poison), bool(tail) and tail_acked == len(tail))
        finally:
            self._unlock(lock_fd)

    # --- internals ------------------------------------------------------------------------------

    def _lock(self, blocking_for: float) -> int:
        """A locked fd of the lock file, or -1 if the lock was not had within ``blocking_for``."""
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        give_up = time.monotonic() + blocking_for
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= give_up:
                    os.close(fd)
                    return -1
                time.sleep(0.005)

    @staticmethod
    def _unlock(fd: int) -> None:
        if fd >= 0:
            os.close(fd)  # closing releases the flock

    def _append_locked(self, lines: list[bytes], enforce_limit: bool = True) -> bool:
        data = b"".join(lines)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if enforce_limit and os.fstat(fd).st_size + len(data) > self.max_bytes:
                return False
            _write_all(fd, data)
            return True
        finally:
            os.close(fd)

    def _read_lines(self) -> list[bytes]:
        try:
            with open(self.path, "rb") as fh:
                return [line if line.endswith(b"\n") else line + b"\n" for line in fh if line.strip()]
        except FileNotFoundError:
            return []

    def _rewrite(self, lines: list[bytes]) -> None:
        if not lines:
            if os.path.exists(self.path):  # under the lock: nobody else can remove it meanwhile
                os.unlink(self.path)
            return
        tmp = f"{self.path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            _write_all(fd, b"".join(lines))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)

    def _append_rejected(self, lines: list[bytes]) -> None:
        fd = os.open(self.path + ".rejected", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _write_all(fd, b"".join(lines))
        finally:
            os.close(fd)


def _decode(line: bytes) -> Record | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
