"""Go: the query, import specs (path and alias) and doc comments.

Why it exists: Go nests methods under their receiver type rather than lexically, embeds structs and
interfaces instead of inheriting, and documents with ``//`` lines directly above a declaration.
"""

from __future__ import annotations

from tree_sitter import Node

from codememory.code.comments import preceding_doc
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.events import ImportRef

_TYPE = "[(type_identifier) (qualified_type)]"
QUERY = f"""
(package_clause (package_identifier) @package)
(function_declaration name: (identifier) @name) @def.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @receiver
    (pointer_type (type_identifier) @receiver)
    (generic_type type: (type_identifier) @receiver)
    (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: [
  (type_identifier) (qualified_type) (pointer_type) (function_type) (map_type) (slice_type)
  (array_type) (channel_type) (generic_type)]) @def.type
(type_alias name: (type_identifier) @name) @def.type
(call_expression function: [(identifier) (selector_expression)] @call)
(field_declaration !name type: {_TYPE} @inherit)
(field_declaration !name type: (pointer_type {_TYPE} @inherit))
(interface_type (type_elem {_TYPE} @inherit))
(parameter_declaration type: (_) @ref.type)
(function_declaration result: (_) @ref.type)
(method_declaration result: (_) @ref.type)
(field_declaration name: (_) type: (_) @ref.type)
(import_spec) @import
"""

_BUILTINS = frozenset(
    [
        "bool",
        "byte",
        "complex64",
        "complex128",
        "error",
        "float32",
        "float64",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "rune",
        "string",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "any",
        "comparable",
    ]
)


def read_imports(node: Node, ctx: ImportContext) -> list[ImportRef]:
    path = node_text(node.child_by_field_name("path")).strip('"`')
    return [ImportRef(module=path, alias=node_text(node.child_by_field_name("name")), line=line_of(node))]


def docstring(node: Node) -> str:
    if node.type == "source_file":
        clause = next((c for c in node.named_children if c.type == "package_clause"), None)
        return docstring(clause) if clause is not None else ""
    return preceding_doc(
        node, wrappers=frozenset({"type_declaration"}), accept=lambda text: text.startswith("//")
    )


SPEC = LanguageSpec(
    name="go",
    query=QUERY,
    imports=read_imports,
    docstring=docstring,
    type_names=frozenset({"type_identifier", "qualified_type"}),
    ignored_types=_BUILTINS,
    file_scoped=frozenset({"init"}),  # every file of a package may have its own (several, even)
)
