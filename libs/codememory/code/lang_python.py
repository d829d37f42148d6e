"""Python: the query, import reading (relative imports resolved) and docstrings.

Why it exists: Python is the language codememory indexes most, and its imports and docstrings are
syntax (not comments), so it has its own reader rather than the comment-based ones.
"""

from __future__ import annotations

from tree_sitter import Node

from codememory.code.modules import resolve_relative
from codememory.code.spec import ImportContext, LanguageSpec, line_of, node_text
from codememory.code.text import python_string
from codememory.events import ImportRef

QUERY = """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(call function: [(identifier) (attribute)] @call)
(class_definition superclasses: (argument_list [(identifier) (attribute)] @inherit))
(typed_parameter type: (type) @ref.type)
(typed_default_parameter type: (type) @ref.type)
(function_definition return_type: (type) @ref.type)
(assignment type: (type) @ref.type)
(decorator [(identifier) (attribute)] @ref)
(argument_list [(identifier) (attribute)] @ref.imported)
(keyword_argument value: [(identifier) (attribute)] @ref.imported)
(default_parameter value: [(identifier) (attribute)] @ref.imported)
(typed_default_parameter value: [(identifier) (attribute)] @ref.imported)
(except_clause [(identifier) (attribute)] @ref.imported)
(except_clause (tuple [(identifier) (attribute)] @ref.imported))
[(import_statement) (import_from_statement)] @import
"""

_BUILTIN_TYPES = frozenset(
    {"int", "str", "float", "bool", "bytes", "None", "object", "list", "dict", "set", "tuple", "type"}
)


def _aliased(node: Node) -> tuple[str, str]:
    if node.type == "aliased_import":
        return node_text(node.child_by_field_name("name")), node_text(node.child_by_field_name("alias"))
    return node_text(node), ""


def _from_module(node: Node, ctx: ImportContext) -> str:
    if node.type != "relative_import":
        return node_text(node)
    dots = 0
    rest = ""
    for child in node.children:
        if child.type == "import_prefix":
            dots = node_text(child).count(".")
        elif child.type == "dotted_name":
            rest = node_text(child)
    return resolve_relative(ctx.module, ctx.is_package, dots, rest)


def read_imports(node: Node, ctx: ImportContext) -> list[ImportRef]:
    line = line_of(node)
    if node.type == "import_statement":
        out = []
        for name_node in node.children_by_field_name("name"):
            module, alias = _aliased(name_node)
            out.append(ImportRef(module=module, alias=alias, line=line))
        return out
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return []
    module = _from_module(module_node, ctx)
    if any(child.type == "wildcard_import" for child in node.children):
        return [ImportRef(module=module, name="*", line=line)]
    refs = []
    for name_node in node.children_by_field_name("name"):
        name, alias = _aliased(name_node)
        refs.append(ImportRef(module=module, name=name, alias=alias, line=line))
    return refs


def docstring(node: Node) -> str:
    """The docstring of a module, class or function node (its first statement, when a string)."""
    body = node if node.type == "module" else node.child_by_field_name("body")
    if body is None:
        return ""
    for index in range(body.named_child_count):
        child = body.named_child(index)
        if child is None or child.type == "comment":
            continue
        string = child
        if child.type == "expression_statement" and child.named_child_count == 1:
            string = child.named_children[0]
        if string.type == "string" and string.text is not None:
            return python_string(string.text)
        return ""
    return ""


SPEC = LanguageSpec(
    name="python",
    query=QUERY,
    imports=read_imports,
    docstring=docstring,
    type_names=frozenset({"identifier", "attribute"}),
    ignored_types=_BUILTIN_TYPES,
)
