"""Where a projection is in LOG: the last sequence applied, kept in a small file beside it.

The index cannot share a transaction with this file, so the position is written only after the index
was flushed; on a crash between the two, events are applied again and the per-point sequence guard
makes that harmless. The file also counts the poison events the projection passed (events it could
never apply; they are in the DLQ), so ``codememory status`` still reports them after a restart.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


class Position:
    def __init__(self, path: Path | None) -> None:
        self._path = path
        self.seq = 0
        self.poisoned = 0
        if path is not None and path.is_file():
            data = json.loads(path.read_text())
            self.seq = int(data.get("seq", 0))
            self.poisoned = int(data.get("poisoned", 0))

    def save(self, seq: int, *, poisoned: int | None = None) -> None:
        self.seq = seq
        if poisoned is not None:
            self.poisoned = poisoned
        if self._path is None:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"seq": seq, "poisoned": self.poisoned}))
        os.replace(tmp, self._path)
