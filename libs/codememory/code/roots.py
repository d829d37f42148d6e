"""A project's source roots: where module names start, so qualnames are the names code imports.

Why it exists: ``libs/codememory/events/catalogue.py`` is imported as ``codememory.events.catalogue``,
not ``libs.codememory...``; ``import { x } from "@app/util"`` names ``src/app/util.ts``; a Go package
is imported by its module path. A module name taken from the file's path never matches those imports,
so the graph had no edge between them. ``SourceRoots`` is the value the discovery (``discovery``: what
the project declares, then what its own imports show) hands to the extractor; it is plain data (a
msgspec struct) so it crosses to the indexer's worker processes and into the CLI's cache.

Naming with roots (a file under no root keeps ``modules.module_name``):

- python: the path below the longest declared root directory holding it, dotted, after that root's
  module prefix (``"services/gateway" -> ""``: ``services/gateway/codememory/gateway/core.py`` is
  ``codememory.gateway.core``); else, for a directory whose root was inferred, its module prefix
  (``python_dirs``); ``overrides`` name single files (a collision fallback: files the roots would
  name alike keep their path names, and an import of that name from inside one of their scopes is
  rewritten to the path name of that one, see ``ambiguous``).
- go: the ``go.mod`` module path joined with the package directory below it, dotted
  (``github.com/acme/app/pkg/server`` -> ``github.com.acme.app.pkg.server``), as imports write it.
- rust: a crate's ``src/`` below its name (``crates/geo/src/shape.rs`` -> ``geo_kit.shape``); the
  crate's ``crate::`` imports are written with its name, so they match.
- typescript / javascript: module names stay path-based; an import through ``paths`` aliases or
  ``baseUrl`` is rewritten to the relative path it names (``@app/util`` -> ``../app/util``), which the
  graph resolves as it resolves ``./`` imports.
"""

from __future__ import annotations

import posixpath

import msgspec

from codememory.code.modules import module_name

__all__ = ["JsAlias", "SourceRoots"]

_JS = frozenset({"typescript", "tsx", "javascript"})


class JsAlias(msgspec.Struct, frozen=True):
    """A tsconfig ``paths`` entry: ``pattern`` (``@app/*``) -> repo-relative ``targets`` (``src/app/*``)."""

    scope: str  # the directory of the tsconfig (the files it applies to)
    pattern: str
    targets: tuple[str, ...]


class SourceRoots(msgspec.Struct, frozen=True):
    """Per-language roots of one repository (directories are repo-relative, posix, ``""`` the root)."""

    python: tuple[tuple[str, str], ...] = ()  # (directory, module prefix)
    overrides: dict[str, str] = {}  # python path -> module, where the roots would name two files alike
    python_dirs: dict[str, str] = {}  # directory -> module prefix of its files (inferred, exact match)
    ambiguous: dict[str, tuple[tuple[str, str], ...]] = {}  # module -> ((scope, path name), ...)
    go: tuple[tuple[str, str], ...] = ()  # (directory of go.mod, module path)
    rust: tuple[tuple[str, str], ...] = ()  # (crate directory, crate name)
    js_base: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # (scope, baseUrl dir, its entries)
    js_aliases: tuple[JsAlias, ...] = ()
    sources: tuple[str, ...] = ()  # where each root came from, for ``codememory index --json``

    def module_name(self, language: str, path: str, declared: str = "") -> str:
        """The module of ``path`` under these roots (``modules.module_name`` when no root holds it)."""
        if language == "python":
            return self.python_module(path) or module_name(language, path, declared)
        if language == "go" and (found := _longest(self.go, posixpath.dirname(path))):
            directory, module = found
            rest = posixpath.dirname(path)[len(directory) :].strip("/")
            return ".".join(p for p in (*module.split("/"), *rest.split("/")) if p)
        if language == "rust" and (found := _longest(self.rust, path)):
            directory, crate = found
            rest = path[len(directory) :].strip("/").removeprefix("src/")
            inner = module_name("rust", rest) if rest else "crate"
            return crate if inner == "crate" else f"{crate}.{inner}"
        return module_name(language, path, declared)

    def python_module(self, path: str) -> str:
        """The Python module of ``path`` under a root, or ``""`` when no root holds it."""
        if path in self.overrides:
            return self.overrides[path]
        found = _longest(self.python, path)
        if found is None:
            directory = posixpath.dirname(path)
            if directory not in self.python_dirs:
                return ""
            found = (directory, self.python_dirs[directory])
        directory, prefix = found
        rest = path[len(directory) :].lstrip("/")
        parts = [*prefix.split("."), *rest.removesuffix(".py").removesuffix(".pyi").split("/")]
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(p for p in parts if p)

    def import_spec(self, language: str, path: str, spec: str) -> str:
        """``spec`` as the graph can resolve it: JS/TS aliases and baseUrl imports as relative paths,
        Rust ``crate::`` as the crate's name; anything else unchanged."""
        if language == "python" and self.ambiguous and not spec.startswith("."):
            return self._unambiguous(path, spec)
        if language == "rust" and spec.startswith("crate::") and (found := _longest(self.rust, path)):
            return found[1] + spec[len("crate") :]
        if language not in _JS or spec.startswith(".") or spec.startswith("/"):
            return spec
        for alias in self.js_aliases:
            if _under(path, alias.scope) and (target := _match(alias, spec)):
                return _relative(path, target)
        for scope, base, entries in self.js_base:
            if _under(path, scope) and spec.split("/", 1)[0] in entries:
                return _relative(path, posixpath.join(base, spec) if base else spec)
        return spec

    def _unambiguous(self, path: str, spec: str) -> str:
        """A module several files would be named (``tests.util`` in each package) as the one whose
        scope holds the importer (its own package's, as Python finds it from there), by path name."""
        parts = spec.split(".")
        for end in range(len(parts), 0, -1):
            candidates = self.ambiguous.get(".".join(parts[:end]))
            if candidates:
                holding = [c for c in candidates if _under(path, c[0])]
                if not holding:
                    return spec
                return ".".join([max(holding, key=lambda c: len(c[0]))[1], *parts[end:]])
        return spec


def _under(path: str, directory: str) -> bool:
    return not directory or path == directory or path.startswith(directory + "/")


def _longest(roots: tuple[tuple[str, str], ...], path: str) -> tuple[str, str] | None:
    best: tuple[str, str] | None = None
    for directory, value in roots:
        if _under(path, directory) and (best is None or len(directory) > len(best[0])):
            best = (directory, value)
    return best


def _match(alias: JsAlias, spec: str) -> str:
    head, star, tail = alias.pattern.partition("*")
    if not star:
        return alias.targets[0] if spec == alias.pattern and alias.targets else ""
    if not (spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail)):
        return ""
    middle = spec[len(head) : len(spec) - len(tail)]
    return alias.targets[0].replace("*", middle, 1) if alias.targets else ""


def _relative(path: str, target: str) -> str:
    rel = posixpath.relpath(posixpath.normpath(target), posixpath.dirname(path) or ".")
    return rel if rel.startswith(".") else f"./{rel}"
