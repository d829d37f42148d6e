"""``codememory replay`` with a progress bar: the ReplayWatch stream, its last message the result.

Why a stream: a rebuild of a large tenant takes a while, and a silent command for minutes looks hung.
The bar shows LOG folded against LOG's end while the memory projection folds, then the finishing steps
(the code graphs), then, while the rebuilt projection already serves, the build of its search index
(HNSW) apart. Piped output gets no bar, only the result.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from codememory.cli.client import Connection
from codememory.v1 import memory_pb2 as pb

REPLAY_TIMEOUT_S = 6 * 3600.0


class ReplayIncompleteError(RuntimeError):
    """The stream ended without a result."""


def watch_replay(conn: Connection) -> pb.ReplayResponse:
    stream = conn.stub.ReplayWatch(pb.ReplayRequest(), metadata=conn.metadata, timeout=REPLAY_TIMEOUT_S)
    with _bar() as show:
        for progress in stream:
            if progress.phase == "done":
                result: pb.ReplayResponse = progress.result
                return result
            show(progress)
    raise ReplayIncompleteError("the replay stream ended without a result")


@contextmanager
def _bar() -> Iterator[Any]:
    if not sys.stderr.isatty():
        yield lambda _progress: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task("replay: starting", total=None)

        def show(update: pb.ReplayProgress) -> None:
            if update.phase == "memory":
                progress.update(
                    task, description="replay: folding LOG", completed=update.seq, total=update.until or None
                )
            elif update.phase == "indexing":
                progress.update(task, description="replay: serving; building the search index (HNSW)")
            else:
                progress.update(task, description=f"replay: {update.phase}")

        yield show
