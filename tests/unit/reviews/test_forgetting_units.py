"""AST units of edit fragments: statements, parameters, definitions, arguments, in several languages."""

from __future__ import annotations

from codememory.reviews.units import shape_of


def _kinds(text: str, path: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for unit in shape_of(text, path).units:
        out.setdefault(unit.kind, set()).add(unit.key)
    return out


def test_python_fragment_with_lost_first_indent_still_parses() -> None:
    kinds = _kinds("if x is None:\n            raise ValueError('x')\n        return x", "a.py")
    assert "if x is None:" in kinds["check"]  # a guard: it raises at once
    units = _kinds("x = 1\n        y = fetch(url, timeout=30)", "a.py")
    assert "timeout" in units["arg"] and "x = 1" in units["stmt"]


def test_parameters_and_definitions_are_keyed_by_name() -> None:
    kinds = _kinds("def load(self, path: str, retries=3):\n    pass", "a.py")
    assert kinds["def"] == {"load"} and kinds["param"] == {"self", "path", "retries"}
    go = _kinds("func Load(path string, retries int) error {\n\treturn nil\n}", "a.go")
    assert go["param"] == {"path", "retries"} and go["def"] == {"Load"}


def test_a_javascript_method_header_parses_as_a_method() -> None:
    kinds = _kinds("  finish (metadata, timeout = 30) {", "lib/timers.js")
    assert kinds["param"] == {"metadata", "timeout"}


def test_identifiers_keep_their_order_and_unknown_languages_are_empty() -> None:
    assert shape_of("a = b + a", "x.py").identifiers == ("a", "b", "a")
    empty = shape_of("whatever", "README.md")
    assert not empty.units and not empty.identifiers
