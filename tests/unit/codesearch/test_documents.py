"""symbol_document: what text a symbol is searched by, dense and lexical."""

from __future__ import annotations

from codememory.codesearch import name_words, symbol_document
from codememory.events import Symbol


def _sym(**kw: object) -> Symbol:
    base: dict[str, object] = {
        "qualname": "pkg.util.is_iterable_but_not_string",
        "name": "is_iterable_but_not_string",
        "kind": "function",
        "start_line": 3,
        "end_line": 9,
        "signature": "def is_iterable_but_not_string(obj, *, strict=False):",
        "docstring": "Determine whether obj is iterable but not a string.\n\n:param obj: anything",
        "excerpt": "return hasattr(obj, '__iter__') and not isinstance(obj, str)",
    }
    base.update(kw)
    return Symbol(**base)  # type: ignore[arg-type]


def test_name_words_split_every_identifier_style() -> None:
    assert name_words("_format_json") == "format json"
    assert name_words("HTTPServer.getURL") == "http server get url"


def test_summary_is_name_words_and_docstring_opening_only() -> None:
    doc = symbol_document(_sym(), "pkg/util.py")
    summary = doc.dense_texts[0]
    assert summary.startswith("is iterable but not string: Determine whether obj")
    assert ":param" not in summary  # later paragraphs are parameters, not meaning


def test_code_text_is_signature_then_excerpt() -> None:
    doc = symbol_document(_sym(), "pkg/util.py")
    assert doc.dense_texts[1].splitlines()[0] == "def is_iterable_but_not_string(obj, *, strict=False):"
    assert "hasattr" in doc.dense_texts[1]


def test_without_docstring_the_name_parameters_and_code_carry_the_summary() -> None:
    doc = symbol_document(_sym(docstring=""), "pkg/util.py")
    summary = doc.dense_texts[0]
    assert summary.startswith("function is iterable but not string")
    assert "(obj strict false)" in summary
    assert "hasattr" in summary


def test_lexical_text_finds_split_identifiers_path_and_docstring() -> None:
    doc = symbol_document(_sym(), "pkg/util.py")
    words = set(doc.lexical_text.split())
    assert {"iterable", "string", "util", "Determine"} <= words
    assert doc.qualname == "pkg.util.is_iterable_but_not_string" and doc.path == "pkg/util.py"


def test_signature_is_not_repeated_when_the_excerpt_starts_with_it() -> None:
    sig = "def f(x):"
    doc = symbol_document(_sym(name="f", signature=sig, excerpt=f"{sig}\n    return x"), "a.py")
    assert doc.dense_texts[1].count(sig) == 1


def test_a_symbol_with_nothing_but_a_name_still_has_one_dense_text() -> None:
    doc = symbol_document(_sym(name="Config", kind="class", signature="", docstring="", excerpt=""), "a.py")
    assert doc.dense_texts == ("class config",)
