"""The codememory executable by its absolute path, for commands written into agents' configurations.

An agent runs hooks and MCP servers with its own PATH, which has often never seen the virtualenv
codememory lives in (a desktop app, an IDE started from the dock, a login shell without the venv
activated). A bare ``codememory`` there fails with "command not found" at every hook. So the bare name
written by default is replaced with this installation's script: the one beside the running
interpreter (``.venv/bin/codememory``), else the one this process was started as, else PATH's.
A command the user spelled out (``--command /opt/cm/bin/codememory``) is left as it is.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

BARE = "codememory"


def executable() -> str:
    """The absolute path of the codememory script of this installation (``codememory`` if none found)."""
    beside = Path(sys.executable).parent / BARE
    candidates = [beside]
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name == BARE:
        candidates.append(Path(argv0) if os.sep in argv0 else Path(shutil.which(argv0) or argv0))
    found = shutil.which(BARE)
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.absolute())
    return BARE


def resolve_command(command: str) -> str:
    """``command`` with a leading bare ``codememory`` replaced by the absolute path, shell-quoted."""
    head, _, rest = command.strip().partition(" ")
    if head != BARE:
        return command
    path = executable()
    return f"{shlex.quote(path)} {rest}".rstrip() if rest else shlex.quote(path)


__all__ = ["BARE", "executable", "resolve_command"]
