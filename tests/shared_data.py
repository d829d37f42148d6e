"""Where the data shared between the projects lives (hook payloads, LoCoMo, CoSQA, schemas).

It is not part of this repository: CI checks the project out beside it, so the default is ``../shared``
next to the checkout. ``CODEMEMORY_SHARED`` points elsewhere, for a clone made anywhere else. One place
says this, so a test never guesses the layout with its own ``parents[N]``.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CODEMEMORY_SHARED") or REPO.parent / "shared")
SHARED_DATA = SHARED / "data"
HOOKS_DATA = SHARED_DATA / "hooks"
