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
   ``pkg/__init__.py``) is followed, as are ``from m import *`` imports: in Python only into a module
   the repository has (an external or not yet folded module exports nothing; its names, when they
   come, wake the references waiting for them). Following a package's ``from .sub import *`` of a
   submodule not folded yet climbed back into the package and through all its star imports again,
   up to ``MAX_DEPTH``: one lookup cost up to 28,000 steps, most of folding Django's references.
4. Java and Go: the same package (sibling files share it: the file's module, then its parent).
5. Last resort, only for attribute uses whose receiver is neither an import nor a name defined in
   scope (``resp.json()``, not ``Builder.make()`` when ``Builder`` is ours): the one live
   symbol of that name in the repository, if exactly one, that is a method (a class for ``inherits``)
   not nested in a function, name of >= 4 characters,
   and not a method of the language's built-in values (Python: members of ``dict``, ``list``, ``str``,
   file objects, and of standard-library values such as asyncio Tasks, threads, subprocesses, Paths,
   Loggers: ``update``, ``read``, ``done``, ``kill``, listed in ``names.py``; JS/TS: ``push``,
   ``then``, ``forEach`` ...): a receiver of unknown type is far more often such a value than the one
   class of the repository defining that name.
   Bare names never fall back (in Python they are builtins or star imports).

Per language: Python uses rules 1 (``self``/``cls``/``super()``), 2 without class scopes, 3 with
absolute modules, 5. JavaScript/TypeScript: 1 (``this``), 2, 3 with specifiers as paths, 5. Go: 2,
3 (alias or last path segment, package by suffix), 4, 5. Java: 1 (``this``), 2 with class scopes,
3 (``import a.b.C`` binds ``C``), 4, 5. Rust: 1 (``self``/``Self::``), 2, 3 (``crate::``/``self::``/
``super::`` paths made absolute), 5.

A reference bound to a module outside the repository (``os.path.join``) stays unresolved; unresolved
references are kept per file and retried when a symbol of the awaited name appears (a file indexed
later resolves earlier files' references, external modules included if they turn up). Resolution is
incremental, so a result can depend on the order files arrive; that order is LOG's, so replay folds
the same graph. A module ``src.x``/``lib.x`` is also registered as ``x``.
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory.codegraph.modules import RepoNames, SymFact
from codememory.codegraph.names import (
    CLASSLIKE,
    FALLBACK_KINDS,
    KINDS_FOR,
    MAX_DEPTH,
    SELF_WORDS,
    builtin_member,
    normalise,
)
from codememory.events import CodeRef

__all__ = ["RepoIndex", "SymFact"]


@dataclass
class RepoIndex(RepoNames):
    """A repository's names (``RepoNames``) and the resolution of references against them."""

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
        scopes = self._scopes(ref.source, lang)
        for scope in scopes:
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
        if lang in ("java", "go") and module:
            for package in (module, module.rsplit(".", 1)[0] if "." in module else ""):
                if package and (hit := self._lookup(f"{package}.{target}")):
                    return hit
        if len(parts) > 1:
            if hit := self._lookup(target):
                return hit
            # the receiver is a class or module of ours, yet the name is not found on it (an external
            # base): no guess. Asked last, only when needed (most references resolve before this).
            head_known = any(self._lookup(f"{scope}.{head}") for scope in scopes)
            return None if head_known else self._fallback(parts[-1], ref.kind, lang)
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
        prefix = qualname
        while (cut := prefix.rfind(".")) >= 0:  # the longest prefix first
            prefix, rest = prefix[:cut], qualname[cut + 1 :]
            fact = self.symbols.get(prefix)
            head, dot, tail = rest.partition(".")
            if fact is not None and fact.kind in CLASSLIKE:
                return None if dot else self._member(prefix, rest)
            if prefix in self.modules:
                path = self.modules[prefix]
                binding = self.bindings.get(path, {}).get(head)
                if binding is not None and binding != qualname:
                    return self._find(f"{binding}.{tail}" if dot else binding, depth + 1, seen)
                python = self.file_lang.get(path) == "python"
                for star in self.stars.get(path, []):
                    if python and star not in self.modules:
                        continue  # exports nothing yet (see the module docstring)
                    if hit := self._find(f"{star}.{rest}", depth + 1, seen):
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
        """The one member named ``name`` reachable as an attribute: a method (or, for ``inherits``, a
        class) with no function among its parents, so a helper nested in a test never matches."""
        if len(name) < 4 or name.startswith("__") or builtin_member(name, lang):
            return None
        wanted = FALLBACK_KINDS[kind]
        found = None
        for q in self.by_name.get(name, ()):
            if self.symbols[q].kind in wanted and not self._in_function(q):
                if found is not None:
                    return None  # a second one: no guess (stop here, a common name has thousands)
                found = q
        return found

    def _in_function(self, qualname: str) -> bool:
        parent = self.symbols[qualname].parent
        for _ in range(16):
            fact = self.symbols.get(parent)
            if fact is None:
                return False
            if fact.kind in ("function", "method"):
                return True
            parent = fact.parent
        return False
