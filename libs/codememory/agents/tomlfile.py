"""Reading and rewriting Codex's ``config.toml`` with the user's comments and layout intact.

The standard library reads TOML but cannot write it, and a hand-written writer would drop what a
person put in the file (comments, key order, blank lines, inline tables). ``tomlkit`` round-trips a
document exactly, so adding one table changes nothing else. Like ``jsonfile``, a file that does not
parse is reported with ``HookConfigError`` and never touched.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.toml_document import TOMLDocument

from codememory.agents.errors import HookConfigError


def load_toml(path: Path) -> TOMLDocument | None:
    """The parsed document, or ``None`` when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookConfigError(path, f"cannot be read: {exc}") from exc
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise HookConfigError(path, f"is not valid TOML: {exc}") from exc


def render_toml(document: TOMLDocument) -> str:
    return tomlkit.dumps(document)


__all__ = ["load_toml", "render_toml"]
