"""Python extraction: qualnames, nesting, spans, docstrings, imports (relative ones resolved), refs."""

from __future__ import annotations

from codememory.code import extract_file
from codememory.events import ImportRef, SymbolsExtracted

SOURCE = b'''"""Storage for items."""
import os.path as osp
from ..core import base as b, other
from . import sibling
from typing import *


class Store(b.Base, Mixin):
    """A store.

    Keeps items.
    """

    cache: Dict[str, Item] = {}

    @property
    def name(self) -> str:
        return self.save(osp.join("a", "b"))

    def save(self, item: Item) -> None:
        def inner():
            helper()
        inner()


def top(a: Store, b: "Lazy" = None) -> list[Item]:
    """Build a store."""
    return Store()
'''


def _extract() -> SymbolsExtracted:
    return extract_file("acme/shop", "src/pkg/sub/store.py", SOURCE)


def test_module_and_qualnames() -> None:
    event = _extract()
    assert event.parsed and event.language == "python"
    assert event.module == "pkg.sub.store"
    by_name = {s.qualname: s for s in event.symbols}
    assert list(by_name) == [
        "pkg.sub.store",
        "pkg.sub.store.Store",
        "pkg.sub.store.Store.name",
        "pkg.sub.store.Store.save",
        "pkg.sub.store.Store.save.inner",
        "pkg.sub.store.top",
    ]
    assert by_name["pkg.sub.store"].kind == "module"
    assert by_name["pkg.sub.store"].docstring == "Storage for items."
    assert by_name["pkg.sub.store"].end_line == 28
    cls = by_name["pkg.sub.store.Store"]
    assert (cls.kind, cls.start_line, cls.end_line, cls.parent) == ("class", 8, 23, "pkg.sub.store")
    assert cls.signature == "class Store(b.Base, Mixin)"
    assert cls.docstring == "A store.\n\nKeeps items."
    name = by_name["pkg.sub.store.Store.name"]
    assert (name.kind, name.start_line, name.end_line) == ("method", 16, 18)  # decorator included
    assert name.signature == "def name(self) -> str"
    assert name.excerpt == 'return self.save(osp.join("a", "b"))'
    inner = by_name["pkg.sub.store.Store.save.inner"]
    assert (inner.kind, inner.parent) == ("function", "pkg.sub.store.Store.save")
    assert by_name["pkg.sub.store.top"].docstring == "Build a store."
    assert all(len(s.digest) == 16 for s in event.symbols)
    assert len(event.content_hash) == 32


def test_imports_resolve_relative_dots() -> None:
    assert _extract().imports == (
        ImportRef(module="os.path", alias="osp", line=2),
        ImportRef(module="pkg.core", name="base", alias="b", line=3),
        ImportRef(module="pkg.core", name="other", line=3),
        ImportRef(module="pkg.sub", name="sibling", line=4),
        ImportRef(module="typing", name="*", line=5),
    )


def test_relative_import_from_a_package_init() -> None:
    event = extract_file("r", "pkg/sub/__init__.py", b"from .x import y\nfrom .. import z\n")
    assert event.module == "pkg.sub"
    assert [(i.module, i.name) for i in event.imports] == [("pkg.sub.x", "y"), ("pkg", "z")]


def test_refs_calls_inherits_references() -> None:
    refs = {(r.kind, r.source, r.target) for r in _extract().refs}
    assert ("inherits", "pkg.sub.store.Store", "b.Base") in refs
    assert ("inherits", "pkg.sub.store.Store", "Mixin") in refs
    assert ("calls", "pkg.sub.store.Store.name", "self.save") in refs
    assert ("calls", "pkg.sub.store.Store.name", "osp.join") in refs
    assert ("calls", "pkg.sub.store.Store.save.inner", "helper") in refs
    assert ("calls", "pkg.sub.store.Store.save", "inner") in refs
    assert ("calls", "pkg.sub.store.top", "Store") in refs
    assert ("references", "pkg.sub.store.top", "Store") in refs
    assert ("references", "pkg.sub.store.top", "Item") in refs
    assert ("references", "pkg.sub.store.Store", "Dict") in refs
    assert ("references", "pkg.sub.store.Store", "property") in refs
    assert not any(t in ("str", "None", "Lazy") for _, _, t in refs)


def test_refs_are_deduplicated_per_source_and_target() -> None:
    event = extract_file("r", "m.py", b"def f():\n    g()\n    g()\n")
    assert [(r.kind, r.source, r.target, r.line) for r in event.refs] == [("calls", "m.f", "g", 2)]


def test_changed_symbol_changes_only_its_digest() -> None:
    before = extract_file("r", "m.py", b"def f():\n    return 1\n\ndef g():\n    return 2\n")
    after = extract_file("r", "m.py", b"def f():\n    return 1\n\ndef g():\n    return 3\n")
    digests = [(a.digest == b.digest) for a, b in zip(before.symbols, after.symbols, strict=True)]
    assert digests == [False, True, False]  # module, f unchanged, g changed


def test_syntax_error_still_yields_what_was_recovered() -> None:
    event = extract_file(
        "r", "m.py", b"def ok():\n    pass\n\ndef broken(:\n    pass\n\nclass C:\n    pass\n"
    )
    assert event.parsed
    assert "m.ok" in {s.qualname for s in event.symbols}
    assert "m.C" in {s.qualname for s in event.symbols}


def test_later_definitions_of_a_name_are_numbered() -> None:
    src = b"class A:\n    @property\n    def x(self): ...\n    @x.setter\n    def x(self, v):\n        g()\n"
    event = extract_file("r", "a.py", src)
    assert [(s.qualname, s.name, s.start_line, s.parent) for s in event.symbols] == [
        ("a", "a", 1, ""),
        ("a.A", "A", 1, "a"),
        ("a.A.x", "x", 2, "a.A"),
        ("a.A.x#2", "x", 4, "a.A"),
    ]
    assert [(r.source, r.target) for r in event.refs if r.kind == "calls"] == [("a.A.x#2", "g")]


def test_imported_names_used_as_values_are_references() -> None:
    src = b"""import errors
from models import Item, Other as O


def f(x, y=O):
    try:
        check(x, Item, errors.Bad, local, key=Item)
    except (errors.Gone, ValueError):
        pass
"""
    refs = {(r.kind, r.target) for r in extract_file("r", "m.py", src).refs if r.source == "m.f"}
    assert refs == {
        ("references", "O"),
        ("calls", "check"),
        ("references", "Item"),
        ("references", "errors.Bad"),
        ("references", "errors.Gone"),
    }
