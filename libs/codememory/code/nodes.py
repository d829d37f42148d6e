"""Where a definition's header and body are in its syntax node, across grammars.

Why it exists: a symbol's signature is "the definition up to its body" and its excerpt is "the first
lines of the body", but grammars disagree on where the body is (a ``body`` field, an arrow function's
body inside a ``value``, no body at all for a struct or a type alias) and on what wraps the definition
(``export``, ``const``, Go's ``type``). These helpers answer that once for every language.
"""

from __future__ import annotations

from tree_sitter import Node


def body_of(node: Node) -> Node | None:
    """The ``body`` field, or the body of the function held in ``value`` (``const f = () => {...}``)."""
    body = node.child_by_field_name("body")
    if body is None:
        value = node.child_by_field_name("value")
        if value is not None:
            body = value.child_by_field_name("body")
    return body


_HEADER_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "type_declaration"}
)


def header_start(node: Node) -> Node:
    """The outermost wrapper starting on the definition's line (``export const f = ...``, ``type T``)."""
    current = node
    while (
        current.parent is not None
        and current.parent.type in _HEADER_WRAPPERS
        and current.parent.start_point[0] == node.start_point[0]
    ):
        current = current.parent
    return current


def inside_braces(body: bytes) -> bytes:
    """A braced body without its opening brace and the rest of that line."""
    if body.startswith(b"{"):
        newline = body.find(b"\n")
        return body[1:] if newline < 0 else body[newline + 1 :]
    return body


def after_first_line(node: Node) -> bytes:
    """A definition without a body field (a struct, a type): everything after its first line."""
    text = node.text or b""
    return text.partition(b"\n")[2]


def first_line(node: Node) -> bytes:
    """The header of a definition without a body."""
    text = node.text or b""
    return text.split(b"\n", 1)[0]
