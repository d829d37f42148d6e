"""Python roots inferred from the project's own import statements, where nothing declares them.

Why it exists: tests, scripts, benchmarks and services run with directories put on ``sys.path`` by a
tool (pytest's rootdir insertion, ``sys.path.insert``, an editable install's ``.pth``) that no build
file records. The project's imports still say what each file is called: a file whose path ends with a
dotted name some file imports (``libs/codememory/events/catalogue.py`` and ``import
codememory.events.catalogue``) sits under a root where that suffix starts (``libs``).

The rule, general and deterministic:

1. Every absolute import is collected (``from a.b import c`` gives ``a.b`` and ``a.b.c``; ``import
   a.b`` gives ``a.b``), by a regular expression over the source (no parse: this runs over every
   Python file before indexing starts).
2. For each file, the longest suffix of its dotted path that is imported names its root (the
   directories before that suffix); a root is never inside a package (a directory with
   ``__init__.py``), where it would break the package's relative imports.
3. Each directory takes the root most of its files named (ties: the shallower root), so one file
   whose name happens to match a standard module (``types.py``) does not re-root its package.
4. A directory none of whose files is imported takes its nearest ancestor's root.

Files whose inferred names would coincide are left to path naming (see ``discovery``).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["imported_names", "infer_python_roots"]

_FROM = re.compile(r"^[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+((?:[^\n#;\\]|\\\n)+)", re.M)
_NAME = re.compile(r"[A-Za-z_]\w*")


def imported_names(source: str) -> set[str]:
    """The absolute module names ``source`` imports (and ``module.name`` for ``from`` imports)."""
    out: set[str] = set()
    for match in _FROM.finditer(source):
        module = match.group(1)
        out.add(module)
        for item in match.group(2).strip("()").replace("\\\n", " ").split(","):
            name = _NAME.match(item.strip())
            if name and name.group(0) != "as":
                out.add(f"{module}.{name.group(0)}")
    for match in _IMPORT.finditer(source):
        for item in match.group(1).replace("\\", " ").split(","):
            words = item.split()
            if words and re.fullmatch(r"[A-Za-z_][\w.]*", words[0]):
                out.add(words[0])
    return out


def _dotted(path: str) -> list[str]:
    parts = path.removesuffix(".pyi").removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts


def infer_python_roots(paths: Iterable[str], imported: set[str]) -> dict[str, str]:
    """Directory -> its inferred root directory, for every directory holding one of ``paths``."""
    paths = list(paths)
    packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
    named: dict[str, str] = {}  # file -> root named by its longest imported suffix
    for path in paths:
        parts = _dotted(path)
        directories = path.split("/")[:-1]
        for start in range(min(len(parts), _base(directories, packages) + 1)):
            if ".".join(parts[start:]) in imported:
                named[path] = "/".join(directories[:start])
                break
    votes: dict[str, Counter[str]] = {}
    for path, root in named.items():
        votes.setdefault(posixpath.dirname(path), Counter())[root] += 1
    decided = {
        directory: min(counts.items(), key=lambda item: (-item[1], item[0].count("/"), item[0]))[0]
        for directory, counts in votes.items()
    }
    out: dict[str, str] = {}
    for path in paths:
        directory = posixpath.dirname(path)
        if directory in out:
            continue
        nearest = _nearest(directory, decided)
        if nearest is not None:
            out[directory] = nearest
    return out


def _base(directories: list[str], packages: set[str]) -> int:
    """How many directories lead to the file's base: its first ancestor that is not a package (a
    root inside a package would break the package's relative imports; pytest roots tests there)."""
    depth = len(directories)
    while depth > 0 and "/".join(directories[:depth]) in packages:
        depth -= 1
    return depth


def _nearest(directory: str, decided: dict[str, str]) -> str | None:
    current = directory
    while True:
        root = decided.get(current)
        if root is not None and (not root or current == root or current.startswith(root + "/")):
            return root
        if not current:
            return None
        current = posixpath.dirname(current)
