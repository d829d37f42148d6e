"""Doc comments written before a definition (JSDoc, Javadoc, Go doc comments, Rust ``///``).

Why it exists: every language but Python documents a definition with comments placed just before it,
sometimes with wrappers in between (``export``, Go's ``type (...)`` group, Rust attributes). One
walker, parameterised per language, finds them and strips their markers.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from codememory.code.text import clean_comment

_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})


def _anchor(node: Node, wrappers: frozenset[str]) -> Node:
    current = node
    while current.parent is not None and current.parent.type in wrappers:
        current = current.parent
    return current


def preceding_doc(
    node: Node,
    *,
    wrappers: frozenset[str] = frozenset(),
    skip: frozenset[str] = frozenset(),
    accept: Callable[[str], bool],
    nearest_only: bool = False,
) -> str:
    """The cleaned doc comment directly above ``node`` (no blank line between), or ``""``."""
    anchor = _anchor(node, wrappers)
    row = anchor.start_point[0]
    found: list[str] = []
    sibling = anchor.prev_named_sibling
    while sibling is not None:
        if sibling.type in skip:
            row = sibling.start_point[0]
            sibling = sibling.prev_named_sibling
            continue
        if sibling.type not in _COMMENT_TYPES or sibling.end_point[0] < row - 1:
            break
        text = (sibling.text or b"").decode("utf-8", "replace")
        if not accept(text):
            break
        found.append(text)
        if nearest_only:
            break
        row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    found.reverse()
    return clean_comment(found) if found else ""


def is_doc_block(text: str) -> bool:
    """``/** ... */`` (JSDoc, TSDoc, Javadoc), not ``/* ... */`` and not ``/**/``."""
    return text.startswith("/**") and not text.startswith("/**/")
