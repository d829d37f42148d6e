"""The roots a project declares in its build files, read without running any of them.

Why it exists: a project already says where its importable code starts; reading that is exact where
guessing is not. Each build file's directories are relative to the directory holding it, so every
package of a monorepo contributes its own roots. What is read:

- ``pyproject.toml``: hatch ``[tool.hatch.build] dev-mode-dirs`` and ``targets.wheel`` ``sources``
  (a table ``dir = prefix`` or a list of prefixes to strip) and ``packages`` (``src/pkg`` -> ``src``);
  setuptools ``package-dir`` and ``packages.find.where``; poetry ``packages`` ``from``; pdm
  ``package-dir``. A Python project declaring none of these is rooted at ``src/`` when it has one
  (the src layout), else at its own directory (the flat layout).
- ``setup.cfg``: ``[options] package_dir`` and ``[options.packages.find] where``; ``setup.py`` alone
  marks a project directory (src or flat layout as above).
- ``tsconfig.json`` / ``jsconfig.json`` (comments and trailing commas allowed): ``baseUrl`` and
  ``paths``.
- ``go.mod``: the ``module`` path. ``Cargo.toml``: ``[package] name`` (``-`` read as ``_``), which
  also covers workspace members, each with its own ``Cargo.toml``.

Unreadable or malformed files are skipped: a broken build file must not stop indexing.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from pathlib import Path
from typing import Any

from codememory.code.roots import JsAlias

__all__ = ["Declared", "read_declared"]

_PY_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py")
_ALL_FILES = frozenset(
    {"pyproject.toml", "setup.cfg", "tsconfig.json", "jsconfig.json", "go.mod", "Cargo.toml"}
)
_JSON_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)


class Declared:
    """What the build files of one repository declare (filled by ``read_declared``)."""

    def __init__(self) -> None:
        self.python: list[tuple[str, str]] = []
        self.go: list[tuple[str, str]] = []
        self.rust: list[tuple[str, str]] = []
        self.js_base: list[tuple[str, str]] = []  # (scope, baseUrl directory)
        self.js_aliases: list[JsAlias] = []
        self.sources: list[str] = []


def read_declared(root: Path, paths: list[str]) -> Declared:
    """The roots declared by the build files among ``paths`` (repo-relative) under ``root``."""
    found = Declared()
    dirs = {posixpath.dirname(p) for p in paths}
    python_projects: set[str] = set()
    for path in sorted(paths):
        directory, name = posixpath.split(path)
        if name in _PY_MARKERS:
            python_projects.add(directory)
        text = _read(root / path) if name in _ALL_FILES else None
        if text is None:
            continue
        before = len(found.python) + len(found.go) + len(found.rust) + len(found.js_base)
        before += len(found.js_aliases)
        if name == "pyproject.toml":
            _pyproject(found, directory, _toml(text))
        elif name == "setup.cfg":
            _setup_cfg(found, directory, text)
        elif name in ("tsconfig.json", "jsconfig.json"):
            _tsconfig(found, directory, _json(text))
        elif name == "go.mod" and (module := _GO_MODULE.search(text)):
            found.go.append((directory, module.group(1)))
        elif name == "Cargo.toml":
            crate = _toml(text).get("package", {}).get("name")
            if isinstance(crate, str) and crate:
                found.rust.append((directory, crate.replace("-", "_")))
        after = len(found.python) + len(found.go) + len(found.rust) + len(found.js_base)
        if after + len(found.js_aliases) > before:
            found.sources.append(path)
    declaring = {d for d, _ in found.python}
    for project in sorted(python_projects):
        if any(_within(d, project) for d in declaring if d):
            continue  # the project said where its code is
        src = posixpath.join(project, "src") if project else "src"
        if any(_within(d, src) for d in dirs):
            found.python.append((src, ""))
        elif project:  # a flat project at the top needs no root: paths are already its modules
            found.python.append((project, ""))
    return found


def _within(path: str, directory: str) -> bool:
    return not directory or path == directory or path.startswith(directory + "/")


def _join(directory: str, relative: str) -> str:
    relative = relative.strip("/")
    joined = posixpath.normpath(posixpath.join(directory, relative)) if relative else directory
    return "" if joined == "." else joined


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _json(text: str) -> dict[str, Any]:
    cleaned = _TRAILING_COMMA.sub(r"\1", _JSON_COMMENT.sub(lambda m: m.group(1) or "", text))
    try:
        value = json.loads(cleaned)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _pyproject(found: Declared, directory: str, data: dict[str, Any]) -> None:
    tool = _table(data.get("tool"))
    hatch = _table(_table(tool.get("hatch")).get("build"))
    wheel = _table(_table(hatch.get("targets")).get("wheel"))
    for key in (hatch, wheel):
        for dev in _strings(key.get("dev-mode-dirs")):
            found.python.append((_join(directory, dev), ""))
        sources = key.get("sources")
        if isinstance(sources, dict):
            for source, prefix in sources.items():
                if isinstance(prefix, str):
                    found.python.append((_join(directory, source), prefix.strip("/").replace("/", ".")))
        for source in _strings(sources):
            found.python.append((_join(directory, source), ""))
        for package in _strings(key.get("packages")):
            found.python.append((_join(directory, posixpath.dirname(package.strip("/"))), ""))
    setuptools = _table(tool.get("setuptools"))
    _package_dir(found, directory, _table(setuptools.get("package-dir")))
    find = _table(_table(setuptools.get("packages")).get("find"))
    for where in _strings(find.get("where")):
        found.python.append((_join(directory, where), ""))
    poetry = _table(tool.get("poetry"))
    for package in poetry.get("packages", []) if isinstance(poetry.get("packages"), list) else []:
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            found.python.append((_join(directory, package["from"]), ""))
    pdm_dir = _table(_table(tool.get("pdm")).get("build")).get("package-dir")
    if isinstance(pdm_dir, str):
        found.python.append((_join(directory, pdm_dir), ""))


def _package_dir(found: Declared, directory: str, mapping: dict[str, Any]) -> None:
    for package, source in mapping.items():
        if isinstance(source, str):
            found.python.append((_join(directory, source), package.strip(".")))


def _setup_cfg(found: Declared, directory: str, text: str) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    raw = parser.get("options", "package_dir", fallback="")
    mapping: dict[str, Any] = {}
    for line in raw.replace(";", "\n").splitlines():
        if "=" in line:
            package, source = line.split("=", 1)
            mapping[package.strip()] = source.strip()
    _package_dir(found, directory, mapping)
    for where in parser.get("options.packages.find", "where", fallback="").split():
        found.python.append((_join(directory, where), ""))


def _tsconfig(found: Declared, directory: str, data: dict[str, Any]) -> None:
    options = _table(data.get("compilerOptions"))
    base_url = options.get("baseUrl")
    base = _join(directory, base_url) if isinstance(base_url, str) else directory
    if isinstance(base_url, str):
        found.js_base.append((directory, base))
    for pattern, targets in _table(options.get("paths")).items():
        resolved = tuple(_join(base, t) for t in _strings(targets))
        if resolved:
            found.js_aliases.append(JsAlias(scope=directory, pattern=pattern, targets=resolved))
