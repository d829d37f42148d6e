"""A repository's ``SourceRoots``: what its build files declare, then what its own imports show.

Why it exists: the indexer, the post-commit hook and the graph service must name a file's module the
same way, or one file would get two sets of qualnames. They all call ``discover_roots`` on the work
tree (the graph service through ``cached_roots``, which rediscovers at most once a minute).

Order for a Python file: a declared root (``declared``) that holds it; else the root its directory's
files are imported under (``inferred``); else its path (``modules.module_name``). Names must be
unique: files the roots would name alike keep their path names (``SourceRoots.overrides``), and
so does every module of a package named alike (``tests`` in each package of a monorepo); an
import of such a name is rewritten to the one found from the importer (``SourceRoots.ambiguous``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import msgspec

from codememory.code.declared import read_declared
from codememory.code.inferred import imported_names, infer_python_roots
from codememory.code.modules import module_name
from codememory.code.roots import SourceRoots
from codememory.code.walk import walk_repository

__all__ = ["cached_roots", "discover_roots"]

_MAX_SOURCE = 2 * 1024 * 1024
_JS_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")
_CACHE_SECONDS = 60.0
_cache: dict[str, tuple[float, SourceRoots]] = {}


def discover_roots(root: Path, paths: Sequence[str] | None = None) -> SourceRoots:
    """The roots of the work tree at ``root``; ``paths`` are its files (walked when not given)."""
    files = sorted(paths) if paths is not None else sorted(f.path for f in walk_repository(root))
    declared = read_declared(root, files)
    python = tuple(dict.fromkeys((d, p) for d, p in declared.python))
    py_files = [p for p in files if p.endswith(".py")]
    imported: set[str] = set()
    for path in py_files:
        imported |= imported_names(_source(root / path))
    undeclared = [p for p in py_files if not any(_under(p, d) for d, _ in python)]
    python_dirs = {
        directory: ".".join(p for p in directory[len(found) :].split("/") if p)
        for directory, found in infer_python_roots(undeclared, imported).items()
    }
    roots = SourceRoots(
        python=python,
        python_dirs=python_dirs,
        go=tuple(declared.go),
        rust=tuple(declared.rust),
        js_base=tuple((scope, base, _entries(files, base)) for scope, base in declared.js_base),
        js_aliases=tuple(declared.js_aliases),
        sources=tuple(declared.sources),
    )
    return _collisions(roots, py_files)


def cached_roots(root: Path) -> SourceRoots:
    """``discover_roots`` for a long-running process: kept per work tree for a minute."""
    key = str(root.resolve())
    now = time.monotonic()
    hit = _cache.get(key)
    if hit is not None and now - hit[0] < _CACHE_SECONDS:
        return hit[1]
    roots = discover_roots(root)
    _cache[key] = (now, roots)
    return roots


def _under(path: str, directory: str) -> bool:
    return not directory or path.startswith(directory + "/")


def _source(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_MAX_SOURCE).decode("utf-8", "replace")
    except OSError:
        return ""


def _entries(files: list[str], base: str) -> tuple[str, ...]:
    """The first path segments below ``base`` (files without their extension), as imports write them."""
    out: set[str] = set()
    for path in files:
        if not _under(path, base):
            continue
        head, _, rest = path[len(base) :].lstrip("/").partition("/")
        if rest:
            out.add(head)
        elif head.endswith(_JS_EXT):
            out.add(head.split(".", 1)[0])
    return tuple(sorted(out))


def _collisions(roots: SourceRoots, py_files: list[str]) -> SourceRoots:
    """The roots with path names for the files they would name alike (repeated until every name is
    unique), and for each such name, where each of its files is found from (``ambiguous``)."""
    overrides: dict[str, str] = {}
    ambiguous: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
    current = roots
    for _ in range(4):
        named: defaultdict[str, list[str]] = defaultdict(list)
        for path in py_files:
            named[current.module_name("python", path)].append(path)
        clashing = {name: paths for name, paths in named.items() if len(paths) > 1}
        if not clashing:
            break
        for name, paths in clashing.items():
            for path in paths:
                if path in overrides:
                    continue
                overrides[path] = module_name("python", path)
                ambiguous[name].append((_scope(path, name), overrides[path]))
                if path.endswith("/__init__.py"):  # a package named alike: its whole tree by path
                    package = path[: -len("__init__.py")]
                    for inner in py_files:
                        if inner.startswith(package) and inner not in overrides:
                            overrides[inner] = module_name("python", inner)
        current = msgspec.structs.replace(
            roots,
            overrides=dict(sorted(overrides.items())),
            ambiguous={name: tuple(sorted(found)) for name, found in sorted(ambiguous.items())},
        )
    return current


def _scope(path: str, name: str) -> str:
    """The directory ``name`` is found from: ``path`` without the segments that spell ``name``."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return "/".join(parts[: max(0, len(parts) - len(name.split(".")))])
