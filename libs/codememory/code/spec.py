"""What the generic extractor needs to know about one language.

Why it exists: the extraction engine (``extract``) is one algorithm over tree-sitter query matches;
each language contributes only its query, how to read its imports, and where its doc comments are.
Keeping that in one small value per language keeps the engine free of ``if language == ...``.

Query capture names the engine understands:

- ``@def.<kind>`` (class, function, struct, interface, enum, trait, type) with ``@name``; optional
  ``@receiver`` (a Go method's receiver type) which nests the definition under that type.
- ``@scope`` with ``@name``: a naming scope that is not itself a symbol (a Rust ``impl`` or ``mod``).
- ``@call`` (callee as written), ``@inherit`` (a base), ``@ref`` (a referenced name as written),
  ``@ref.type`` (a type expression: its type names are collected), ``@ref.imported`` (a name kept
  only when the file imports it: an argument, an ``except`` clause, a JSX element), ``@import``,
  ``@package``.

``file_scoped`` names top-level functions that belong to their file rather than to the namespace the
file shares with others (Go's ``init``: any number per package, never called by name). They are named
under the file's own symbol (``svc/a.go.init``), so two files of one package never define the same
qualname.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from codememory.events import ImportRef


@dataclass(frozen=True, slots=True)
class ImportContext:
    """What an import reader needs to resolve relative imports."""

    module: str
    is_package: bool


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    query: str
    imports: Callable[[Node, ImportContext], list[ImportRef]]
    docstring: Callable[[Node], str]
    type_names: frozenset[str]
    ignored_types: frozenset[str] = frozenset()
    file_scoped: frozenset[str] = frozenset()


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def line_of(node: Node) -> int:
    return node.start_point[0] + 1
