"""The AST units an edit removes and adds, for any language tree-sitter parses here.

Why: forgetting is an edit that takes back what an earlier instructed edit did, and "what it did" has
to be compared by structure, not by lines: the same check re-indented, a parameter given a new default
or an argument moved are different lines but the same node. An edit's old and new text are fragments
(an agent replaces a few lines), so they are parsed as they are (tree-sitter tolerates a fragment) and
reduced to units:

* ``stmt``: a statement or declaration (``if``, ``return``, an assignment, a ``const``), its text
  whitespace-normalised; its key is its first line, so a statement whose body grew keeps its key.
* ``check``: a guard, an ``if`` without ``else`` that raises, returns or throws at once, or an ``assert``.
* ``param``: one parameter of a signature, keyed by its name.
* ``def``: a function, method or class header, keyed by its name.
* ``arg``: a keyword argument or an object literal's pair (``timeout=30``, ``{retries: 3}``).
* ``decorator`` and ``import``.

Identifiers are kept apart, in order, for renames. Nothing here knows of sessions or NATS.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from tree_sitter import Node, Parser
from tree_sitter_language_pack import get_parser

from codememory.code.languages import language_of

__all__ = ["Shape", "Unit", "shape_of", "tokens"]

_PARAM_LISTS = frozenset({"parameters", "formal_parameters", "parameter_list", "lambda_parameters"})
_DEFS = frozenset(
    {
        "function_definition",
        "class_definition",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_declaration",
        "class_declaration",
        "type_declaration",
    }
)
_ARGS = frozenset({"keyword_argument", "pair"})
_CALLS = frozenset({"call", "call_expression", "new_expression"})
_LAMBDAS = frozenset({"lambda", "arrow_function", "function_expression", "func_literal"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "import_declaration", "import_spec"})
_DECLS = frozenset(
    {
        "lexical_declaration",
        "variable_declaration",
        "short_var_declaration",
        "var_declaration",
        "const_declaration",
        "assignment_statement",
    }
)
_IDENTS = frozenset(
    {
        "identifier",
        "property_identifier",
        "field_identifier",
        "type_identifier",
        "shorthand_property_identifier",
    }
)
_BODIES = frozenset({"block", "statement_block", "class_body", "body"})
_EXITS = frozenset(
    {"raise_statement", "throw_statement", "return_statement", "continue_statement", "break_statement"}
)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SEQUENCES = frozenset({"module", "block", "program", "statement_block", "source_file", "class_body"})
_METHOD_HEAD = re.compile(r"^\s*(?:async\s+|static\s+|get\s+|set\s+)*[#\w$]+\s*\(.*\)\s*\{\s*$")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "function", "return", "with"})


@dataclass(frozen=True, slots=True)
class Unit:
    kind: str
    key: str
    text: str
    owner: str = field(default="", compare=False)  # a parameter's function, an argument's callee


@dataclass(frozen=True, slots=True)
class Shape:
    """A fragment as units (a multiset) and its identifiers in order."""

    units: Counter[Unit]
    identifiers: tuple[str, ...]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _norm(text: str) -> str:
    return " ".join(text.split())


@cache
def _parser(language: str) -> Parser:
    return get_parser(language)  # type: ignore[arg-type]


def _prepare(text: str, language: str) -> str:
    """Make a fragment parse as what it is.

    Python fragments lose their first line's indentation to capping: the rest is dedented to match. A
    JavaScript or TypeScript fragment that starts with a method header (``finish (meta) {``) would
    parse as a call followed by a block, so it is put inside a class body; a brace-language fragment
    that opens more braces than it closes (a header alone) is closed, so its parameters have a function.
    """
    if language != "python":
        text += "\n}" * max(0, text.count("{") - text.count("}"))  # a header without its body's end
    if language in ("javascript", "typescript", "tsx"):
        first = text.lstrip("\n").split("\n", 1)[0]
        word = first.strip().split("(", 1)[0].split()[-1:] if "(" in first else []
        if _METHOD_HEAD.match(first) and not (set(word) & _KEYWORDS):
            return "class _ {\n" + text + "\n}"
        return text
    if language != "python":
        return text
    lines = text.strip("\n").split("\n")
    if len(lines) < 2 or lines[0].rstrip().endswith(":"):
        return "\n".join(line.rstrip() for line in lines).lstrip()
    rest = [line for line in lines[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    first = lines[0].strip()
    return "\n".join([first, *(line[indent:] if line.strip() else "" for line in lines[1:])])


def _name(node: Node) -> str:
    named = node.child_by_field_name("name") or node.child_by_field_name("key")
    if named is None:
        named = next((c for c in _walk(node) if c.type in _IDENTS), None)
    return _text(named) if named is not None else ""


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _header(node: Node) -> str:
    """A definition or compound statement up to its body."""
    body = next((c for c in node.children if c.type in _BODIES), None)
    full = _text(node)
    if body is not None and node.text is not None:
        full = node.text[: body.start_byte - node.start_byte].decode("utf-8", "replace")
    return _norm(full).rstrip("{: ")


def _walk(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.children))
    return out


def _owner(node: Node, kinds: frozenset[str]) -> str:
    """The name of the nearest enclosing node of ``kinds`` (a function, a call), or ``""``."""
    current = node.parent
    while current is not None and current.type not in kinds:
        current = current.parent
    if current is None:
        return ""
    callee = current.child_by_field_name("function") or current.child_by_field_name("constructor")
    if callee is not None:
        names = [_text(n) for n in _walk(callee) if n.type in _IDENTS]
        return names[-1] if names else ""
    return _name(current) if current.type in _DEFS else ""


def _guards(node: Node) -> bool:
    """An ``if`` without ``else`` whose body leaves at once: raise, throw, return, continue or break."""
    if node.child_by_field_name("alternative") is not None:
        return False
    body = node.child_by_field_name("consequence")
    first = next((c for c in (body.named_children if body else []) if c.type != "comment"), None)
    if first is not None and first.type in ("block", "statement_block"):
        first = next((c for c in first.named_children if c.type != "comment"), None)
    return first is not None and first.type in _EXITS


def _unit(node: Node) -> Unit | None:
    kind = node.type
    parent = node.parent
    if parent is not None and parent.type in _PARAM_LISTS and node.is_named and kind != "comment":
        return Unit("param", _name(node), _norm(_text(node)), _owner(parent, _DEFS | _LAMBDAS))
    if kind in _DEFS:
        return Unit("def", _name(node), _header(node))
    if kind in _ARGS:
        return Unit("arg", _name(node), _norm(_text(node)), _owner(node, _CALLS))
    if kind == "decorator":
        return Unit("decorator", _norm(_text(node)), _norm(_text(node)))
    if kind in _IMPORTS:
        return Unit("import", _norm(_text(node)), _norm(_text(node)))
    if kind in ("assert_statement", "if_statement") and (kind != "if_statement" or _guards(node)):
        return Unit("check", _norm(_text(node).split("\n", 1)[0]), _norm(_text(node)))
    statement_level = parent is not None and parent.type in _SEQUENCES and node.is_named
    if (
        kind.endswith("_statement")
        or kind in _DECLS
        or (statement_level and kind not in ("comment", "ERROR"))
    ):
        text = _norm(_text(node))
        if len(tokens(text)) < 3:
            return None  # pass, break, a bare return: too small to mean anything alone
        return Unit("stmt", _norm(_text(node).split("\n", 1)[0]), text)
    return None


def shape_of(text: str, path: str) -> Shape:
    """The units and identifiers of a fragment of ``path``; empty for a language not parsed here."""
    language = language_of(path)
    if not language or not text.strip():
        return Shape(Counter(), ())
    tree = _parser(language).parse(_prepare(text, language).encode("utf-8", "replace"))
    units: Counter[Unit] = Counter()
    identifiers: list[str] = []
    for node in _walk(tree.root_node):
        if node.type in _IDENTS:
            identifiers.append(_text(node))
            if node.parent is None or node.parent.type not in _PARAM_LISTS:
                continue  # a bare parameter name is a parameter too
        unit = _unit(node)
        if unit is not None:
            units[unit] += 1
    return Shape(units, tuple(identifiers))
