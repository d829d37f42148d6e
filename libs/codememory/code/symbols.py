"""Definitions a tree-sitter query found in one file -> nested, uniquely named ``Symbol`` records.

Why a module of its own: ``extract.py`` runs the query and attributes references; naming is a
separate rule set. A definition's qualname is ``module + "." + nesting`` (by byte spans), a method
defined with a receiver (Go) is named under it, a function the language scopes to its file
(``LanguageSpec.file_scoped``) under the file's symbol, and a later definition of a qualname already
defined in the file is ``qualname#2``, ``#3``... so no two symbols of one file share a qualname.
Each symbol carries its lines, signature, docstring, excerpt and content digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

import msgspec
from tree_sitter import Node

from codememory.code.nodes import after_first_line, body_of, first_line, header_start, inside_braces
from codememory.code.spec import LanguageSpec, line_of
from codememory.code.text import digest, excerpt, one_line
from codememory.events import Symbol
from codememory.events.catalogue import SymbolKind

__all__ = ["Def", "name_symbols", "nearest"]

_EXCERPT_BYTES = 4096
_CLASSLIKE = frozenset({"class", "struct", "interface", "enum", "trait", "impl"})


@dataclass(slots=True)
class Def:
    """One definition as the query captured it; ``qualname`` is set by ``name_symbols``."""

    node: Node
    name: str
    kind: str  # a SymbolKind, or "impl"/"scope" for naming scopes that are not symbols
    receiver: str = ""
    qualname: str = ""


@dataclass(frozen=True, slots=True)
class _File:
    path: str
    source: bytes
    spec: LanguageSpec


def name_symbols(
    defs: list[Def], module: str, file_qual: str, spec: LanguageSpec, source: bytes, path: str, root: Node
) -> list[Symbol]:
    """The file's module symbol, then one per definition, in source order. Sorts ``defs`` by position
    and sets each one's ``qualname`` (and ``kind``: a function in a class is a method), which
    reference attribution then reads."""
    file = _File(path, source, spec)
    defs.sort(key=lambda d: (d.node.start_byte, -d.node.end_byte))
    stack: list[Def] = []
    out = [_module_symbol(file, module, file_qual, root)]
    seen = {file_qual}
    for d in defs:
        while stack and stack[-1].node.end_byte <= d.node.start_byte:
            stack.pop()
        enclosing = stack[-1] if stack else None
        if d.receiver:
            d.qualname = f"{module}.{d.receiver}.{d.name}"
            d.kind = "method"
        elif enclosing is None and d.kind == "function" and d.name in spec.file_scoped:
            d.qualname = f"{file_qual}.{d.name}"
        else:
            d.qualname = f"{enclosing.qualname if enclosing else module}.{d.name}"
            if d.kind == "function" and enclosing is not None and enclosing.kind in _CLASSLIKE:
                d.kind = "method"
        stack.append(d)
        if d.kind in ("impl", "scope") or not d.name:
            continue
        if d.qualname in seen:
            d.qualname = _another(d.qualname, seen)
        seen.add(d.qualname)
        out.append(_symbol(file, d))
    for i, sym in enumerate(out[1:], start=1):
        out[i] = _with_parent(sym, nearest(sym.qualname, seen, file_qual))
    return out


def nearest(qualname: str, names: set[str], fallback: str, *, inclusive: bool = False) -> str:
    """The longest (proper, unless ``inclusive``) dotted prefix of ``qualname`` that is a symbol here."""
    current = qualname if inclusive else qualname.rpartition(".")[0]
    while current:
        if current in names:
            return current
        current = current.rpartition(".")[0]
    return fallback


def _module_symbol(file: _File, module: str, file_qual: str, root: Node) -> Symbol:
    source = file.source
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    return Symbol(
        qualname=file_qual,
        name=PurePosixPath(file.path).name if file_qual == file.path else module.rsplit(".", 1)[-1],
        kind="module",
        start_line=1,
        end_line=max(1, lines),
        docstring=file.spec.docstring(root),
        excerpt=excerpt(source),
        digest=digest(source),
    )


def _symbol(file: _File, d: Def) -> Symbol:
    node, source = d.node, file.source
    outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
    body = body_of(node)
    head = header_start(node)
    header = source[head.start_byte : body.start_byte] if body is not None else first_line(head)
    kind: SymbolKind = d.kind  # type: ignore[assignment]
    return Symbol(
        qualname=d.qualname,
        name=d.name,
        kind=kind,
        start_line=line_of(outer),
        end_line=node.end_point[0] + 1,
        signature=one_line(header),
        docstring=file.spec.docstring(node),
        excerpt=excerpt(
            inside_braces(source[body.start_byte : min(body.end_byte, body.start_byte + _EXCERPT_BYTES)])
        )
        if body is not None
        else excerpt(after_first_line(node)),
        digest=digest(source[outer.start_byte : node.end_byte]),
    )


def _another(qualname: str, seen: set[str]) -> str:
    """``name#2``, ``name#3``...: a later definition of a name already defined in this file."""
    n = 2
    while f"{qualname}#{n}" in seen:
        n += 1
    return f"{qualname}#{n}"


def _with_parent(sym: Symbol, parent: str) -> Symbol:
    return sym if sym.parent == parent else msgspec.structs.replace(sym, parent=parent)
