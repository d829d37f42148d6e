"""The source roots each repository was last indexed with, kept in the home beside the token.

Why it exists: a file's qualnames depend on the repository's roots (``codememory.code.discovery``),
and an index skips files whose content the gateway already has. When the roots change (a package
added, a build file edited), the files whose module name changed must be parsed again even though
their content did not; with no record of the last roots (a first index by this version, another
machine), every file is parsed again. The post-commit hook names modules with the same roots, so a
commit's symbols match the ones the index recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import msgspec

from codememory.code.languages import language_of
from codememory.code.roots import SourceRoots

__all__ = ["load_roots", "save_roots", "stale_paths"]

_JS = frozenset({"typescript", "tsx", "javascript"})


def _file(home: Path, repo: str) -> Path:
    return home / "roots" / f"{hashlib.sha256(repo.encode()).hexdigest()[:24]}.json"


def load_roots(home: Path, repo: str) -> SourceRoots | None:
    """The roots ``repo`` was last indexed with here, or None (never, or unreadable)."""
    try:
        return msgspec.json.decode(_file(home, repo).read_bytes(), type=SourceRoots)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def save_roots(home: Path, repo: str, roots: SourceRoots) -> None:
    path = _file(home, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(msgspec.json.encode(roots))
    temporary.replace(path)


def stale_paths(previous: SourceRoots | None, current: SourceRoots) -> Callable[[str], bool]:
    """Which files must be parsed again: every one without previous roots, else those whose module
    name (or, for JS/TS, whose import rewriting) differs under the new roots."""
    if previous is None:
        return lambda path: True
    if previous == current:
        return lambda path: False
    js_changed = (previous.js_aliases, previous.js_base) != (current.js_aliases, current.js_base)

    def stale(path: str) -> bool:
        language = language_of(path)
        if language in _JS:
            return js_changed
        return previous.module_name(language, path) != current.module_name(language, path)

    return stale
