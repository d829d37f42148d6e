"""One read of LOG handed to several folds: replay rebuilds both projections from a single pass.

Why: replay folded the memory projection from LOG, then read and decoded all of LOG a second time for
the code projection (100,000 events: both served after 22 s, the memory one after 12 s). A
``SharedRead`` reads a range of LOG once (``log_batches``: JetStream's batched reader when the log has
one) and hands every batch to each of its readers; each takes them at its own pace, at most ``ahead``
batches behind the read, so the faster fold waits for the slower one instead of memory growing, and the
read runs ahead of both meanwhile. Each fold skips the records at or below its own projection's position
(``fold_records``), so one read from the lowest position serves projections that start apart. With
more than one reader, each batch is decoded once (in a thread, ``decode_records``) for all of them.

A reader that stops (its fold failed, its task was cancelled) leaves: the read goes on for the others and
stops once none is left. A failed read (LOG unreachable) is raised in every reader still there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from codememory.events import EventLog, LogRecord
from codememory.projection.fold import decode_records


@dataclass(frozen=True)
class _End:
    error: BaseException | None = None


class SharedRead:
    """LOG from ``from_seq`` to ``until_seq`` (inclusive) read once, in lists of up to ``chunk``, for
    ``readers`` readers (``reader(i)``, each taken once). The read starts with the first reader's first
    look."""

    def __init__(
        self,
        event_log: EventLog,
        from_seq: int,
        until_seq: int,
        *,
        readers: int,
        chunk: int = 5000,
        ahead: int = 2,
    ) -> None:
        if readers < 1:
            raise ValueError("a shared read needs at least one reader")
        self.from_seq, self.until_seq = max(from_seq, 1), until_seq
        self._log = event_log
        self._chunk = chunk
        self._queues: list[asyncio.Queue[list[LogRecord] | _End]] = [
            asyncio.Queue(maxsize=max(ahead, 1)) for _ in range(readers)
        ]
        self._taken: set[int] = set()
        self._gone: set[int] = set()
        self._pump: asyncio.Task[None] | None = None
        self.batches = 0  # read from LOG so far (each handed to every reader)

    def reader(self, index: int) -> AsyncGenerator[list[LogRecord], None]:
        if not 0 <= index < len(self._queues) or index in self._taken:
            raise ValueError(f"reader {index} does not exist or was taken already")
        self._taken.add(index)
        return self._read_as(index)

    async def _read_as(self, index: int) -> AsyncGenerator[list[LogRecord], None]:
        queue = self._queues[index]
        try:
            if self._pump is None:
                self._pump = asyncio.create_task(self._read(), name="shared-log-read")
            while True:
                item = await queue.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
        finally:
            await self._leave(index)

    async def _leave(self, index: int) -> None:
        self._gone.add(index)
        queue = self._queues[index]
        while not queue.empty():  # a read waiting for room in this queue goes on
            queue.get_nowait()
        pump = self._pump
        if len(self._gone) == len(self._queues) and pump is not None and not pump.done():
            pump.cancel()  # nobody is left to read for
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    async def _read(self) -> None:
        end = _End()
        try:
            read = log_batches(self._log, self.from_seq, self.until_seq, self._chunk)
            async with contextlib.aclosing(read) as batches:  # its consumer ends with this task
                async for read_batch in batches:
                    self.batches += 1
                    batch = read_batch
                    if len(self._queues) > 1:  # decoded once for every fold
                        batch = await asyncio.to_thread(decode_records, read_batch)
                    for index, queue in enumerate(self._queues):
                        if index not in self._gone:
                            await queue.put(batch)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every reader still there sees it
            end = _End(exc)
        for index, queue in enumerate(self._queues):
            if index not in self._gone:
                await queue.put(end)


async def log_batches(
    event_log: EventLog, from_seq: int, until_seq: int, chunk: int
) -> AsyncGenerator[list[LogRecord], None]:
    """LOG from ``from_seq`` to ``until_seq`` in lists of up to ``chunk``: by the log's own batched
    reader when it has one (``JetStreamEventLog.read_batches``), else by grouping ``read``."""
    batched = getattr(event_log, "read_batches", None)
    if batched is not None:
        async for records in batched(from_seq, until_seq=until_seq, batch=chunk):
            yield records
        return
    batch: list[LogRecord] = []
    async for record in event_log.read(from_seq, until_seq=until_seq):
        batch.append(record)
        if len(batch) >= chunk:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["SharedRead", "log_batches"]
