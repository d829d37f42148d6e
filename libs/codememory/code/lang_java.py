"""Java: the query, ``import`` declarations and Javadoc.

Why it exists: Java names its namespace with a ``package`` declaration (the module of every class in
the file), calls methods on receivers (``a.b.run()`` is read as receiver + name) and documents with
``/** */`` blocks placed before the modifiers.
"""

from __future__ import annotations

from tree_sitter import Node

from codememory.code.comments import is_doc_block, preceding_doc
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.events import ImportRef

_TYPE = "[(type_identifier) (scoped_type_identifier)]"
QUERY = f"""
(package_declaration [(scoped_identifier) (identifier)] @package)
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.function
(constructor_declaration name: (identifier) @name) @def.function
(method_invocation object: (_)? @call.object name: (identifier) @call.name)
(object_creation_expression type: {_TYPE} @call)
(object_creation_expression type: (generic_type {_TYPE} @call))
(superclass {_TYPE} @inherit)
(superclass (generic_type {_TYPE} @inherit))
(super_interfaces (type_list {_TYPE} @inherit))
(super_interfaces (type_list (generic_type {_TYPE} @inherit)))
(extends_interfaces (type_list {_TYPE} @inherit))
(extends_interfaces (type_list (generic_type {_TYPE} @inherit)))
(formal_parameter type: (_) @ref.type)
(field_declaration type: (_) @ref.type)
(method_declaration type: (_) @ref.type)
(import_declaration) @import
"""


def read_imports(node: Node, ctx: ImportContext) -> list[ImportRef]:
    text = node_text(node).removeprefix("import").strip().removesuffix(";").strip()
    text = text.removeprefix("static").strip().replace(" ", "")
    if text.endswith(".*"):
        return [ImportRef(module=text[:-2], name="*", line=line_of(node))]
    module, _, name = text.rpartition(".")
    return [ImportRef(module=module, name=name, line=line_of(node))]


def docstring(node: Node) -> str:
    if node.type == "program":
        return ""
    return preceding_doc(node, accept=is_doc_block, nearest_only=True)


SPEC = LanguageSpec(
    name="java",
    query=QUERY,
    imports=read_imports,
    docstring=docstring,
    type_names=frozenset({"type_identifier", "scoped_type_identifier"}),
    ignored_types=frozenset({"String", "Object"}),
)
