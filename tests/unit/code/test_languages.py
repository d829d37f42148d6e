"""Language by extension, and degrading everything else to a file node."""

from __future__ import annotations

import pytest

from codememory.code import (
    MAX_BYTES,
    IndexingError,
    UnsupportedLanguageError,
    extract_file,
    language_of,
    registry,
)


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("a/b.pyi", "python"),
        ("x.ts", "typescript"),
        ("types.d.ts", "typescript"),
        ("x.tsx", "tsx"),
        ("x.js", "javascript"),
        ("x.jsx", "javascript"),
        ("x.mjs", "javascript"),
        ("x.cjs", "javascript"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("A.java", "java"),
        ("README.md", ""),
        ("Makefile", ""),
        ("x.PY", "python"),
    ],
)
def test_language_of(path: str, language: str) -> None:
    assert language_of(path) == language


def test_unsupported_language_degrades_to_a_file_node() -> None:
    event = extract_file("r", "docs/readme.md", b"# Title\n")
    assert (event.parsed, event.language, event.symbols, event.module) == (False, "", (), "")
    assert len(event.content_hash) == 32


@pytest.mark.parametrize(
    "source",
    [b"def f():\n    return '\0'\n", b"x = '\xff\xfe'\n", b"#" * (MAX_BYTES + 1)],
    ids=["nul-byte", "not-utf8", "too-large"],
)
def test_unreadable_python_degrades_but_keeps_its_language(source: bytes) -> None:
    event = extract_file("r", "m.py", source)
    assert (event.parsed, event.language, event.symbols, event.refs) == (False, "python", (), ())


def test_empty_file_is_a_module() -> None:
    event = extract_file("r", "pkg/empty.py", b"")
    assert event.parsed
    assert [(s.qualname, s.kind, s.start_line, s.end_line) for s in event.symbols] == [
        ("pkg.empty", "module", 1, 1)
    ]


def test_unknown_grammar_is_a_typed_error() -> None:
    with pytest.raises(UnsupportedLanguageError) as caught:
        registry.spec("cobol")
    assert isinstance(caught.value, IndexingError)
