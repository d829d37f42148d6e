"""Where the benchmarks' data lives: ``$CODEMEMORY_SHARED``, or ``../shared`` beside the checkout.

The hook payloads, LoCoMo and CoSQA are shared between projects, not part of this repository; every
script finds them here instead of guessing the layout.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CODEMEMORY_SHARED") or REPO.parent / "shared")
SHARED_DATA = SHARED / "data"
HOOKS_DATA = SHARED_DATA / "hooks"
