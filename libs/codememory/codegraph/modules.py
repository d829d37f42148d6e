"""One repository's names as the fold has seen them: modules, import bindings, live symbols, waiters.

Why a module of its own: registration (what a file defines and imports, and which references wait for
which name) changes with every folded file; ``resolve.py`` only reads it to resolve references. Import
specifiers become repository modules here: Python absolute modules, JS/TS ``./`` specifiers as paths,
Go/Java/Rust paths by exact module or longest known suffix (``crate::``/``self::``/``super::`` made
absolute); anything else is kept as written and counts as external.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from codememory.codegraph.names import JS, JS_EXT, last_segment, layout_alias, module_key
from codememory.events import CodeRef, ImportRef

__all__ = ["RepoNames", "SymFact"]


@dataclass(frozen=True, slots=True)
class SymFact:
    name: str
    kind: str
    parent: str
    path: str


@dataclass
class RepoNames:
    """One repository's names, as the fold has seen them so far."""

    repo: str
    modules: dict[str, str] = field(default_factory=dict)  # module (and alias) -> path
    file_module: dict[str, str] = field(default_factory=dict)
    file_lang: dict[str, str] = field(default_factory=dict)
    bindings: dict[str, dict[str, str]] = field(default_factory=dict)
    stars: dict[str, list[str]] = field(default_factory=dict)
    symbols: dict[str, SymFact] = field(default_factory=dict)
    by_name: dict[str, set[str]] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)
    pending: dict[str, dict[str, list[CodeRef]]] = field(default_factory=dict)  # path -> awaited -> refs
    imports: dict[str, tuple[ImportRef, ...]] = field(default_factory=dict)  # path -> its imports
    pending_imports: dict[str, set[str]] = field(default_factory=dict)  # path -> module keys it awaits
    waiting: dict[str, set[str]] = field(default_factory=dict)  # awaited name -> paths
    file_syms: dict[str, set[str]] = field(default_factory=dict)
    _cache: dict[str, str | None] = field(default_factory=dict)  # lookups; cleared by any change

    # --- registration -----------------------------------------------------------------------------

    def drop_file(self, path: str) -> None:
        self._cache.clear()
        module = self.file_module.pop(path, "")
        for name in (module, layout_alias(module)):
            if name and self.modules.get(name) == path:
                del self.modules[name]
        self.file_lang.pop(path, None)
        self.bindings.pop(path, None)
        self.stars.pop(path, None)
        self.pending.pop(path, None)
        self.imports.pop(path, None)
        self.pending_imports.pop(path, None)
        for qualname in self.file_syms.pop(path, set()):
            self.drop_symbol(qualname)

    def drop_symbol(self, qualname: str) -> None:
        self._cache.clear()
        fact = self.symbols.pop(qualname, None)
        if fact is not None:
            names = self.by_name.get(fact.name)
            if names is not None:
                names.discard(qualname)
                if not names:
                    del self.by_name[fact.name]
            self.bases.pop(qualname, None)

    def add_file(self, path: str, module: str, language: str, imports: tuple[ImportRef, ...]) -> None:
        self._cache.clear()
        self.file_lang[path] = language
        if module:
            self.file_module[path] = module
            if not (path.endswith(".pyi") and module in self.modules):  # the stub never hides its module
                self.modules[module] = path
            if layout_alias(module):
                self.modules.setdefault(layout_alias(module), path)
        bindings: dict[str, str] = {}
        stars: list[str] = []
        for imp in imports:
            target = self.module_of(imp.module, path)
            if imp.name == "*":
                stars.append(target)
            elif imp.name and imp.name != "default":
                bindings[imp.alias or imp.name] = f"{target}.{imp.name}"
            elif language == "python" and not imp.alias:
                head = imp.module.split(".", 1)[0]  # ``import a.b`` binds ``a``
                bindings[head] = self.module_of(head, path)
            else:
                bindings[imp.alias or last_segment(imp.module, language)] = target
        self.bindings[path] = bindings
        self.stars[path] = stars

    def add_symbol(self, qualname: str, fact: SymFact) -> None:
        self._cache.clear()
        self.symbols[qualname] = fact
        self.file_syms.setdefault(fact.path, set()).add(qualname)
        self.by_name.setdefault(fact.name, set()).add(qualname)

    def add_base(self, cls: str, base: str) -> None:
        bases = self.bases.setdefault(cls, [])
        if base not in bases:
            bases.append(base)
            self._cache.clear()

    def wait(self, path: str, key: str) -> None:
        self.waiting.setdefault(key, set()).add(path)

    def woken(self, names: set[str], modules: set[str]) -> set[str]:
        """Paths waiting for one of these symbol names or module names (and no longer waiting)."""
        paths: set[str] = set()
        for key in [*names, *(module_key(m) for m in modules)]:
            paths |= self.waiting.pop(key, set())
        return paths

    # --- modules and imports ----------------------------------------------------------------------

    def module_of(self, spec: str, from_path: str) -> str:
        """The repository module ``spec`` names (canonical), or ``spec`` itself when it is external."""
        lang = self.file_lang.get(from_path, "")
        if spec.startswith(".") and lang in JS:
            base = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
            for candidate in (base, *(base + ext for ext in JS_EXT)):
                if candidate in self.file_module:
                    return self.file_module[candidate]
            return spec
        dotted = spec.replace("::", ".").replace("/", ".").strip(".")
        module = self.file_module.get(from_path, "")
        if dotted.startswith("crate."):
            dotted = dotted[len("crate.") :]
        elif dotted.startswith("super.") and module:
            dotted = module.rsplit(".", 2)[0] + dotted[len("super") :]
        elif dotted.startswith("self.") and module:
            dotted = module + dotted[len("self") :]
        if dotted in self.modules:
            return self.file_module[self.modules[dotted]]
        if lang not in ("python", "") and "." in dotted:
            segs = dotted.split(".")
            for i in range(1, len(segs)):
                tail = ".".join(segs[i:])
                if tail in self.modules:
                    return self.file_module[self.modules[tail]]
        return dotted

    def import_target(self, path: str, imp: ImportRef) -> tuple[str | None, set[str]]:
        """The file an import brings in (None while it is unknown, or outside the repository), and the
        module keys whose arrival could change that answer.

        ``from pkg import name`` is the module ``pkg.name`` when there is one, else ``pkg``. While
        ``pkg.name`` has not been seen and ``pkg`` does not define or import ``name``, the import is
        linked to ``pkg`` and keeps waiting for ``pkg.name``: files arrive in any order, and the
        submodule may come later (the fold then links the file's imports again).
        """
        module = self.module_of(imp.module, path)
        named = bool(imp.name) and imp.name not in ("*", "default")
        if named and f"{module}.{imp.name}" in self.modules:
            return self.modules[f"{module}.{imp.name}"], set()
        keys = {module_key(f"{module}.{imp.name}")} if named else set()
        if module in self.modules:
            if named and self._defines(module, imp.name):
                keys = set()
            return self.modules[module], keys
        fact = self.symbols.get(module)
        if fact is not None:
            return fact.path, set()
        return None, keys | {module_key(imp.module)}

    def _defines(self, module: str, name: str) -> bool:
        """``module`` defines ``name``, or binds it to something other than its own submodule."""
        path = self.modules[module]
        canonical = self.file_module.get(path, module)
        bound = self.bindings.get(path, {}).get(name)
        return f"{canonical}.{name}" in self.symbols or (bound is not None and bound != f"{canonical}.{name}")

    def module_key(self, module: str) -> str:
        return module_key(module)
