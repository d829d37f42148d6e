"""Where the data shared between the projects lives (hook payloads, LoCoMo, CoSQA, schemas).

It is not part of this repository: CI checks the project out beside it, so the default is ``../shared``
next to the checkout. ``CODEMEMORY_SHARED`` points elsewhere. A clone made elsewhere from a local
checkout (``git clone /path/to/main /tmp/x``) finds it beside the checkout it was cloned from. One place
says this, so a test never guesses the layout with its own ``parents[N]``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    configured = os.environ.get("CODEMEMORY_SHARED")
    if configured:
        return Path(configured)
    beside = REPO.parent / "shared"
    if beside.is_dir():
        return beside
    origin = subprocess.run(
        ["git", "-C", str(REPO), "config", "--get", "remote.origin.url"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if origin and Path(origin).is_dir() and (Path(origin).resolve().parent / "shared").is_dir():
        return Path(origin).resolve().parent / "shared"
    return beside


SHARED = _shared()
SHARED_DATA = SHARED / "data"
HOOKS_DATA = SHARED_DATA / "hooks"
