"""Signature, excerpt, digest and doc comment cleaning stay within their budgets."""

from __future__ import annotations

from codememory.code.text import (
    DOCSTRING_MAX,
    EXCERPT_MAX,
    SIGNATURE_MAX,
    clean_comment,
    content_hash,
    digest,
    excerpt,
    one_line,
    python_string,
)


def test_one_line_collapses_and_trims() -> None:
    assert one_line(b"def f(\n    a: int,\n    b: str,\n) -> None:") == "def f( a: int, b: str, ) -> None"
    assert one_line(b"class A {") == "class A"
    assert one_line(b"fn area(&self) -> f64;") == "fn area(&self) -> f64"
    assert one_line(b"use a::") == "use a::"
    assert len(one_line(b"x" * 500)) == SIGNATURE_MAX


def test_excerpt_dedents_and_is_bounded() -> None:
    assert excerpt(b"\n        a = 1\n        if a:\n            b()\n") == "a = 1\nif a:\n    b()"
    assert len(excerpt(b"\n".join([b"    " + b"y" * 100] * 40))) == EXCERPT_MAX


def test_hashes() -> None:
    assert len(content_hash(b"abc")) == 32 and content_hash(b"abc") != content_hash(b"abd")
    assert digest(b"abc") == content_hash(b"abc")[:16]


def test_python_string_literals() -> None:
    assert python_string(b'"""\n    Title.\n\n    Body.\n    """') == "Title.\n\nBody."
    assert python_string(b"r'raw \\d'") == "raw \\d"
    assert len(python_string(b'"' + b"z" * 5000 + b'"')) == DOCSTRING_MAX


def test_clean_comment_markers() -> None:
    assert clean_comment(["/**\n * A thing.\n *\n * @param x the x\n */"]) == "A thing.\n\n@param x the x"
    assert clean_comment(["/// A point.", "/// In 2D."]) == "A point.\nIn 2D."
    assert clean_comment(["// Server serves.", "// Safe."]) == "Server serves.\nSafe."
    assert clean_comment(["//! Crate docs."]) == "Crate docs."
    assert clean_comment(["/** One line. */"]) == "One line."


def test_excerpt_drops_a_byte_order_mark_and_carriage_returns() -> None:
    assert excerpt("\ufeffimport os\r\nx = 1\r\n".encode()) == "import os\nx = 1"
