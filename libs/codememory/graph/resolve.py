"""Resolution: a reference as written (``self.save``, ``models.Response``, ``fmt.Println``) to a symbol.

Why it exists: the extractor sees one file; only the repository knows what ``Response`` or
``session.request`` names. ``RepoIndex`` holds one repository's modules, import bindings and live
symbols, and resolves each ``CodeRef`` in this order (the first hit wins):

1. ``self.x`` / ``this.x`` / ``cls.x`` / ``Self::x`` -> method ``x`` of the enclosing class, then of its
   bases (resolved ``inherits`` edges, depth 5); ``super().x`` -> the bases only.
2. Lexical scope: ``t`` defined inside the enclosing symbol, then its parents, then the module. Python
   skips class bodies (a method is not visible by bare name); Java, TypeScript, Go, Rust do not.
3. Import bindings of the file (alias -> module or module.name): Python ``import a.b as c`` /
   ``from m import n as a`` (relative imports arrive absolute); JS/TS specifiers resolved as paths
   (``./m`` -> ``m.ts``, ``m/index.ts`` ...); Go import paths and Java/Rust paths by exact module or by
   their longest known suffix. A binding to a module re-exporting a name (``from .api import get`` in
   ``pkg/__init__.py``) is followed, as are ``from m import *`` imports.
4. Java and Go: the same package (sibling files share it).
5. Last resort, only for attribute uses whose receiver is not an import (``resp.json()``): the one live
   symbol of that name in the repository, if exactly one, of a fitting kind, name of >= 4 characters,
   and not a method of the language's built-in values (Python: ``dict``/``list``/``str``/``set``/...
   members such as ``update``, ``keys``; JS/TS: ``push``, ``then``, ``forEach`` ...), whose receiver is
   far more often a built-in value than the repository's one class defining that name.
   Bare names never fall back (in Python they are builtins or star imports).

A reference bound to a module outside the repository (``os.path.join``) stays unresolved. Unresolved
references (external ones too: the module may be indexed later) are kept per file and retried when a
symbol with the awaited name appears, so a file indexed later resolves earlier files' references.
Resolution is incremental, so a result can depend on the order files arrive (a name unique when a
reference was resolved may stop being unique later); the order is LOG's, so replay gives the same graph.
Module names are canonical as extracted; one without a leading ``src.``/``lib.`` is also registered.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from codememory.events import CodeRef, ImportRef
from codememory.graph.names import (
    CLASSLIKE,
    JS,
    JS_EXT,
    KINDS_FOR,
    MAX_DEPTH,
    SELF_WORDS,
    builtin_member,
    last_segment,
    layout_alias,
    module_key,
    normalise,
)

__all__ = ["RepoIndex", "SymFact"]


@dataclass(frozen=True, slots=True)
class SymFact:
    name: str
    kind: str
    parent: str
    path: str


@dataclass
class RepoIndex:
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
    pending_imports: dict[str, dict[str, list[ImportRef]]] = field(default_factory=dict)
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

    def import_target(self, path: str, imp: ImportRef) -> str | None:
        """The file an import brings in, or None while it is unknown (or outside the repository)."""
        module = self.module_of(imp.module, path)
        if imp.name and imp.name not in ("*", "default") and f"{module}.{imp.name}" in self.modules:
            return self.modules[f"{module}.{imp.name}"]
        if module in self.modules:
            return self.modules[module]
        fact = self.symbols.get(module)
        return fact.path if fact else None

    def import_key(self, imp: ImportRef) -> str:
        return module_key(imp.module)

    def module_key(self, module: str) -> str:
        return module_key(module)

    # --- references -------------------------------------------------------------------------------

    def resolve(self, path: str, ref: CodeRef) -> str | None:
        """The qualname ``ref`` names, or None (see the module docstring for the order of rules)."""
        target = normalise(ref.target)
        if not target:
            return None
        found = self._resolve(path, ref, target)
        if found is None:
            return None
        allowed = KINDS_FOR[ref.kind]
        fact = self.symbols[found]
        if (allowed is not None and fact.kind not in allowed) or found == ref.source:
            return None
        return found

    def awaited(self, path: str, ref: CodeRef) -> str | None:
        """The symbol name an unresolved ``ref`` waits for (a module bound now may appear later)."""
        parts = normalise(ref.target).split(".")
        binding = self.bindings.get(path, {}).get(parts[0])
        if binding is not None and len(parts) == 1:
            return binding.rsplit(".", 1)[-1]
        return parts[-1] or None

    def _resolve(self, path: str, ref: CodeRef, target: str) -> str | None:
        parts = target.split(".")
        head = parts[0]
        lang = self.file_lang.get(path, "")
        if head in SELF_WORDS or head == "super":
            cls = self._enclosing_class(ref.source)
            if cls is not None and len(parts) >= 2:
                if head == "super":
                    hit = next((m for b in self.bases.get(cls, []) if (m := self._member(b, parts[1]))), None)
                else:
                    hit = self._member(cls, parts[1])
                if hit is not None and len(parts) == 2:
                    return hit
            return self._fallback(parts[-1], ref.kind, lang) if len(parts) > 2 else None
        for scope in self._scopes(ref.source, lang):
            if hit := self._lookup(f"{scope}.{target}"):
                return hit
        binding = self.bindings.get(path, {}).get(head)
        if binding is not None:
            full = ".".join([binding, *parts[1:]])
            if hit := self._lookup(full):
                return hit
            if self._external(binding) or len(parts) == 1:
                return None
            return self._fallback(parts[-1], ref.kind, lang)
        for star in self.stars.get(path, []):
            if hit := self._lookup(f"{star}.{target}"):
                return hit
        module = self.file_module.get(path, "")
        if (
            lang in ("java", "go")
            and "." in module
            and (hit := self._lookup(f"{module.rsplit('.', 1)[0]}.{target}"))
        ):
            return hit
        if len(parts) > 1:
            return self._lookup(target) or self._fallback(parts[-1], ref.kind, lang)
        return None

    def _lookup(self, qualname: str) -> str | None:
        if qualname in self._cache:
            return self._cache[qualname]
        found = self._cache[qualname] = self._find(qualname)
        return found

    def _find(self, qualname: str, depth: int = 0, seen: set[str] | None = None) -> str | None:
        if qualname in self.symbols:
            return qualname
        if qualname in self.modules:
            module = self.file_module[self.modules[qualname]]
            return module if module in self.symbols else None
        seen = set() if seen is None else seen
        if depth > MAX_DEPTH or qualname in seen:
            return None  # too deep, or a cycle of re-exports (``from a import *`` in b and back)
        seen.add(qualname)
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix, rest = ".".join(parts[:i]), parts[i:]
            fact = self.symbols.get(prefix)
            if fact is not None and fact.kind in CLASSLIKE:
                return self._member(prefix, rest[0]) if len(rest) == 1 else None
            if prefix in self.modules:
                path = self.modules[prefix]
                binding = self.bindings.get(path, {}).get(rest[0])
                if binding is not None and binding != qualname:
                    return self._find(".".join([binding, *rest[1:]]), depth + 1, seen)
                for star in self.stars.get(path, []):
                    if hit := self._find(".".join([star, *rest]), depth + 1, seen):
                        return hit
                return None
        return None

    def _member(self, cls: str, name: str, depth: int = 0) -> str | None:
        if f"{cls}.{name}" in self.symbols:
            return f"{cls}.{name}"
        if depth >= MAX_DEPTH:
            return None
        return next((m for b in self.bases.get(cls, []) if (m := self._member(b, name, depth + 1))), None)

    def _enclosing_class(self, source: str) -> str | None:
        current: str | None = source
        for _ in range(16):
            fact = self.symbols.get(current or "")
            if fact is None:
                return None
            if fact.kind in CLASSLIKE:
                return current
            current = fact.parent
        return None

    def _scopes(self, source: str, lang: str) -> list[str]:
        scopes: list[str] = []
        current = source
        for _ in range(16):
            fact = self.symbols.get(current)
            if fact is None:
                break
            if not (lang == "python" and fact.kind in CLASSLIKE and current != source):
                scopes.append(current)
            if not fact.parent:
                break
            current = fact.parent
        return scopes

    def _external(self, binding: str) -> bool:
        parts = binding.split(".")
        return not any(".".join(parts[:i]) in self.modules for i in range(len(parts), 0, -1))

    def _fallback(self, name: str, kind: str, lang: str) -> str | None:
        if len(name) < 4 or name.startswith("__") or builtin_member(name, lang):
            return None
        allowed = KINDS_FOR[kind]
        found = [q for q in self.by_name.get(name, ()) if allowed is None or self.symbols[q].kind in allowed]
        return found[0] if len(found) == 1 else None
