"""Making files durable: an fsync per file or directory, or one ``syncfs`` for a whole filesystem.

``syncfs(2)`` (Linux, through libc: the standard library has no binding) is one syscall however many
files a batch wrote, where a thousand fsyncs on a thread pool each handed the GIL back and forth in
a busy process. Elsewhere, or if it fails, the key store fsyncs each file as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

__all__ = ["fsync_dir", "fsync_file", "sync_filesystem"]


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:  # destroyed before it was synced: nothing to keep
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _load_syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        syncfs = libc.syncfs
    except (OSError, AttributeError):
        return None
    syncfs.argtypes = [ctypes.c_int]
    syncfs.restype = ctypes.c_int
    return cast(Callable[[int], int], syncfs)


_syncfs = _load_syncfs()


def sync_filesystem(root: Path) -> bool:
    """``syncfs(2)`` of the filesystem holding ``root``: every file and directory written on it is
    durable when it returns 0 (Linux 5.8+ reports write-back errors). False: not done, fsync instead."""
    if _syncfs is None:
        return False
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return bool(_syncfs(fd) == 0)
    finally:
        os.close(fd)
