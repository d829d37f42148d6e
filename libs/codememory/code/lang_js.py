"""JavaScript, TypeScript and TSX: queries, ES imports (and ``require``) and JSDoc/TSDoc.

Why it exists: the three grammars share their statements but not their node types (TypeScript adds
interfaces, enums, type aliases and annotations), so each gets its own query over one shared import
reader. Import modules are kept as the specifier string (``./m``, ``react``): resolving them needs
the file system and the bundler's rules, which is the graph's job.
"""

from __future__ import annotations

from tree_sitter import Node

from codememory.code.comments import is_doc_block, preceding_doc
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.events import ImportRef

_COMMON = """
(class_declaration name: (_) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(call_expression function: [(identifier) (member_expression)] @call)
(new_expression constructor: [(identifier) (member_expression)] @call)
(import_statement) @import
(export_statement source: (_)) @import
(call_expression function: (identifier) @_fn arguments: (arguments . (string) @import) (#eq? @_fn "require"))
"""
_JSX = """
(jsx_opening_element name: [(identifier) (member_expression)] @ref.imported)
(jsx_self_closing_element name: [(identifier) (member_expression)] @ref.imported)
"""
JS_QUERY = (
    _COMMON
    + _JSX
    + """
(class_heritage [(identifier) (member_expression)] @inherit)
(field_definition
  property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def.function
"""
)
TS_QUERY = (
    _COMMON
    + """
(abstract_class_declaration name: (type_identifier) @name) @def.class
(public_field_definition
  name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(interface_declaration name: (type_identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(type_alias_declaration name: (type_identifier) @name) @def.type
(method_signature name: (property_identifier) @name) @def.function
(extends_clause value: [(identifier) (member_expression)] @inherit)
(implements_clause [(type_identifier) (nested_type_identifier)] @inherit)
(implements_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @inherit))
(extends_type_clause type: [(type_identifier) (nested_type_identifier)] @inherit)
(extends_type_clause type: (generic_type name: [(type_identifier) (nested_type_identifier)] @inherit))
(type_annotation) @ref.type
"""
)

_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})


def _string(node: Node | None) -> str:
    text = node_text(node)
    return text[1:-1] if len(text) >= 2 else text


def read_imports(node: Node, ctx: ImportContext) -> list[ImportRef]:
    line = line_of(node)
    if node.type == "string":  # require("x"), aliased when assigned: const x = require("x")
        call = node.parent.parent if node.parent is not None else None
        holder = call.parent if call is not None else None
        alias = ""
        if holder is not None and holder.type == "variable_declarator":
            name = holder.child_by_field_name("name")
            alias = node_text(name) if name is not None and name.type == "identifier" else ""
        return [ImportRef(module=_string(node), alias=alias, line=line)]
    module = _string(node.child_by_field_name("source"))
    out: list[ImportRef] = []
    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    out.append(ImportRef(module=module, name="default", alias=node_text(part), line=line))
                elif part.type == "namespace_import":
                    alias = next((node_text(c) for c in part.named_children), "")
                    out.append(ImportRef(module=module, name="*", alias=alias, line=line))
                elif part.type == "named_imports":
                    out.extend(_specifiers(module, part, line))
        elif child.type == "export_clause":
            out.extend(_specifiers(module, child, line))
    return out or [ImportRef(module=module, line=line)]


def _specifiers(module: str, node: Node, line: int) -> list[ImportRef]:
    out = []
    for spec in node.named_children:
        if spec.type in ("import_specifier", "export_specifier"):
            name = node_text(spec.child_by_field_name("name"))
            alias = node_text(spec.child_by_field_name("alias"))
            out.append(ImportRef(module=module, name=name, alias=alias, line=line))
    return out


def docstring(node: Node) -> str:
    if node.type == "program":
        return ""
    return preceding_doc(node, wrappers=_WRAPPERS, accept=is_doc_block, nearest_only=True)


def _spec(name: str, query: str) -> LanguageSpec:
    return LanguageSpec(
        name=name,
        query=query,
        imports=read_imports,
        docstring=docstring,
        type_names=frozenset({"type_identifier", "nested_type_identifier"}),
    )


JAVASCRIPT = _spec("javascript", JS_QUERY)
TYPESCRIPT = _spec("typescript", TS_QUERY)
TSX = _spec("tsx", TS_QUERY + _JSX)
