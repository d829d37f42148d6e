"""Rust: the query, ``use`` trees and ``///`` doc comments.

Why it exists: Rust attaches methods through ``impl`` blocks (a naming scope, not a symbol), inherits
only through trait impls and supertraits, and nests imports as ``use a::b::{C, D as E}``. Import
modules keep Rust's ``::`` separators as written (``a::b``), so ``crate::``/``super::`` stay legible.
"""

from __future__ import annotations

from tree_sitter import Node

from codememory.code.comments import preceding_doc
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.code.text import clean_comment
from codememory.events import ImportRef

_TYPE = "[(type_identifier) (scoped_type_identifier)]"
QUERY = f"""
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)]) @impl
(mod_item name: (identifier) @name body: (_)) @scope
(call_expression function: [(identifier) (scoped_identifier) (field_expression)] @call)
(impl_item trait: {_TYPE} @inherit)
(impl_item trait: (generic_type type: {_TYPE} @inherit))
(trait_item bounds: (trait_bounds {_TYPE} @inherit))
(parameter type: (_) @ref.type)
(function_item return_type: (_) @ref.type)
(field_declaration type: (_) @ref.type)
(use_declaration) @import
"""


def _join(prefix: str, path: str) -> str:
    return f"{prefix}::{path}" if prefix and path else prefix or path


def _split(full: str) -> tuple[str, str]:
    module, sep, name = full.rpartition("::")
    return (module, name) if sep else (full, "")


def _use(prefix: str, node: Node, line: int, out: list[ImportRef]) -> None:
    kind = node.type
    if kind == "scoped_use_list":
        inner = _join(prefix, node_text(node.child_by_field_name("path")))
        for child in (node.child_by_field_name("list") or node).named_children:
            _use(inner, child, line, out)
    elif kind == "use_list":
        for child in node.named_children:
            _use(prefix, child, line, out)
    elif kind == "use_as_clause":
        module, name = _split(_join(prefix, node_text(node.child_by_field_name("path"))))
        out.append(
            ImportRef(module=module, name=name, alias=node_text(node.child_by_field_name("alias")), line=line)
        )
    elif kind == "use_wildcard":
        out.append(
            ImportRef(
                module=_join(prefix, node_text(node).removesuffix("*").removesuffix("::")),
                name="*",
                line=line,
            )
        )
    elif kind == "self":
        out.append(ImportRef(module=prefix, line=line))
    else:
        module, name = _split(_join(prefix, node_text(node)))
        out.append(ImportRef(module=module, name=name, line=line))


def read_imports(node: Node, ctx: ImportContext) -> list[ImportRef]:
    argument = node.child_by_field_name("argument")
    out: list[ImportRef] = []
    if argument is not None:
        _use("", argument, line_of(node), out)
    return out


def _is_outer_doc(text: str) -> bool:
    return (text.startswith("///") and not text.startswith("////")) or (
        text.startswith("/**") and not text.startswith("/**/")
    )


def docstring(node: Node) -> str:
    if node.type == "source_file":
        inner = [c for c in node.named_children[:20] if c.type == "line_comment"]
        lines = []
        for comment in inner:
            text = node_text(comment)
            if not text.startswith("//!"):
                break
            lines.append(text)
        return clean_comment(lines) if lines else ""
    return preceding_doc(node, skip=frozenset({"attribute_item"}), accept=_is_outer_doc)


SPEC = LanguageSpec(
    name="rust",
    query=QUERY,
    imports=read_imports,
    docstring=docstring,
    type_names=frozenset({"type_identifier", "scoped_type_identifier"}),
    ignored_types=frozenset({"Self"}),
)
