"""Reading and atomically rewriting an agent's JSON config file.

These files belong to the user (and often to their team, via git). Reading refuses anything we
could not write back faithfully: invalid JSON (including JSONC comments, which ``json`` would drop)
or a top level that is not an object raises ``HookConfigError`` before any write happens. Writing
goes through a temporary file in the same directory and ``os.replace``, so a crash or a full disk
leaves either the old file or the new one, never half of each.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from codememory.agents.errors import HookConfigError

_NEW_FILE_MODE = 0o644


def load_config(path: Path) -> dict[str, Any] | None:
    """The parsed top-level object, or ``None`` when the file does not exist.

    A file holding only whitespace counts as an empty object: it is what ``touch`` leaves behind.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookConfigError(path, f"cannot be read: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HookConfigError(path, f"is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HookConfigError(path, f"top level must be a JSON object, not {type(data).__name__}")
    return data


def render(data: dict[str, Any]) -> str:
    """The on-disk form: 2-space indentation, key order kept, non-ASCII kept, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically, keeping an existing file's permission bits.

    A symlinked config (dotfile managers do this) is written through, not replaced by a file.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = _NEW_FILE_MODE
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.chmod(mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
