"""Symbols are embedded at a lower CPU priority than the event path that records them.

Why: ``codememory index`` of Django records 3,670 files in seconds, and their 12,783 symbols then take
about 25 core-seconds of the model. In the one-process stack (and wherever the embed service shares
cores with the gateway) the model competed with RecordCode's intake and the code projection's fold
for the two cores, so the embedder, not the facts, bounded how fast an index was applied. A symbol's
facts are searchable by words and in the graph without its vector, so the vector can wait: symbol
texts are embedded in one thread of their own, niced (``CODEMEMORY_EMBED_SYMBOL_NICE``, 10 by
default; 0 turns it off). On idle cores it runs at full speed; under load the event path comes first.
Nothing is deferred past the handler: the batch is acknowledged only once its vectors are in LOG.

The model's worker threads (OpenMP) are created by the thread that first runs it and inherit its
nice value. Linux only: there a thread's nice value is its own; elsewhere the thread runs as is.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import structlog

log = structlog.get_logger(__name__)


def _lower_priority(nice: int) -> None:
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)
    except OSError as exc:  # a sandbox that refuses it: embed at normal priority
        log.warning("symbol_nice_refused", nice=nice, error=str(exc))


def symbol_executor(nice: int, name: str = "embed-symbols") -> ThreadPoolExecutor:
    """The one thread symbol texts (or, with ``memory_nice``, memory texts) are embedded in, ``nice``
    steps below the caller's priority."""
    return ThreadPoolExecutor(1, thread_name_prefix=name, initializer=_lower_priority, initargs=(nice,))


def thread_nice() -> int:
    """This thread's nice value (what a test of ``symbol_executor`` reads back)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


__all__ = ["symbol_executor", "thread_nice"]
