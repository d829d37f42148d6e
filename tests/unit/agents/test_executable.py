"""The bare codememory becomes this installation's script by absolute path; anything else is kept."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from codememory.agents.executable import executable, resolve_command


def test_executable_is_the_script_beside_the_interpreter() -> None:
    path = Path(executable())
    assert path.is_absolute() and path.name == "codememory"
    assert path.parent == Path(sys.executable).parent and os.access(path, os.X_OK)


def test_only_a_leading_bare_name_is_resolved() -> None:
    assert resolve_command("codememory") == executable()
    assert resolve_command("codememory record-commit") == f"{executable()} record-commit"
    assert resolve_command("/opt/cm/codememory hook") == "/opt/cm/codememory hook"
    assert resolve_command("uv run codememory") == "uv run codememory"
