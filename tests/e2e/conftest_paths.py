"""Where the shared hook payloads are, and which agent each belongs to."""

from __future__ import annotations

import sys
from pathlib import Path

from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

BIN = Path(sys.executable).parent

HOOK_FILES = sorted([*HOOKS_DATA.glob("*.json"), *(HOOKS_DATA / "claude_docs").glob("*.json")])


def agent_of(path: Path) -> str:
    return "claude" if path.parent.name == "claude_docs" else path.name.split("_", 1)[0]
