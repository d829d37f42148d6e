"""A file's module name: the prefix of every qualname it defines.

Why it exists: qualnames must be unique in a repository and must match how other files name the
same thing, so cross-file resolution (the graph) can join ``from pkg.mod import X`` to ``pkg.mod.X``.

Rules (one per language family):

- python: the dotted path without ``.py``; ``pkg/__init__.py`` is ``pkg``; a leading ``src/`` or
  ``lib/`` layout directory is dropped (``src/pkg/mod.py`` -> ``pkg.mod``), because that is what the
  code imports.
- go: the package directory, dotted (``pkg/server/h.go`` -> ``pkg.server``): every file of a Go package
  shares one namespace. A file at the root uses its ``package`` clause. The file's own module symbol is
  then named by its path (see ``file_symbol_name``), so it stays unique.
- java: the ``package`` declaration when present, else the dotted directory; same file-symbol rule.
- rust: the dotted path without ``.rs`` and a leading ``src/``; ``mod.rs``, ``lib.rs`` and ``main.rs``
  name their directory (``crate`` at the root).
- typescript / tsx / javascript: the dotted path without the extension (``index`` is kept).
"""

from __future__ import annotations

from pathlib import PurePosixPath

_LAYOUT_DIRS = ("src", "lib")
_SHARED_NAMESPACE = frozenset({"go", "java"})


def _dotted(parts: list[str]) -> str:
    return ".".join(p for p in parts if p)


def module_name(language: str, path: str, declared: str = "") -> str:
    """The module (namespace) of ``path``; ``declared`` is a package clause or declaration, if any."""
    pure = PurePosixPath(path)
    parts = list(pure.parts)
    stem_parts = [*parts[:-1], pure.stem] if parts else []
    if language == "python":
        if len(stem_parts) > 1 and stem_parts[0] in _LAYOUT_DIRS:
            stem_parts = stem_parts[1:]
        if stem_parts and stem_parts[-1] == "__init__":
            stem_parts = stem_parts[:-1]
        return _dotted(stem_parts) or pure.stem
    if language == "go":
        return _dotted(parts[:-1]) or declared or pure.stem
    if language == "java":
        return declared or _dotted(parts[:-1]) or pure.stem
    if language == "rust":
        if len(stem_parts) > 1 and stem_parts[0] == "src":
            stem_parts = stem_parts[1:]
        if stem_parts and stem_parts[-1] in ("mod", "lib", "main"):
            stem_parts = stem_parts[:-1]
        return _dotted(stem_parts) or "crate"
    return _dotted(stem_parts) or pure.stem


def file_symbol_name(language: str, path: str, module: str) -> str:
    """The qualname of the file's ``module`` symbol: the module, or the path where files share one."""
    return path if language in _SHARED_NAMESPACE else module


def resolve_relative(module: str, is_package: bool, dots: int, rest: str) -> str:
    """Python's ``from ..x import y`` seen from ``module``: the absolute module name (best effort)."""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if dots > 1:
        base = base[: max(0, len(base) - (dots - 1))]
    return _dotted([*base, rest])
