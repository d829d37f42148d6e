"""Per-process caches of parsers and compiled queries, and the language -> spec table.

Why it exists: building a parser or compiling a query costs far more than parsing a small file, so
each worker process builds them once per language and reuses them for every file.
"""

from __future__ import annotations

from functools import cache

from tree_sitter import Parser, Query
from tree_sitter_language_pack import get_language, get_parser

from codememory.code import lang_go, lang_java, lang_js, lang_python, lang_rust
from codememory.code.errors import UnsupportedLanguageError
from codememory.code.spec import LanguageSpec

_SPECS: dict[str, LanguageSpec] = {
    "python": lang_python.SPEC,
    "javascript": lang_js.JAVASCRIPT,
    "typescript": lang_js.TYPESCRIPT,
    "tsx": lang_js.TSX,
    "go": lang_go.SPEC,
    "rust": lang_rust.SPEC,
    "java": lang_java.SPEC,
}


def spec(language: str) -> LanguageSpec:
    try:
        return _SPECS[language]
    except KeyError:
        raise UnsupportedLanguageError(language) from None


@cache
def parser(language: str) -> Parser:
    spec(language)
    return get_parser(language)  # type: ignore[arg-type]


@cache
def query(language: str) -> Query:
    return Query(get_language(language), spec(language).query)  # type: ignore[arg-type]
