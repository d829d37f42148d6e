"""What text stands for a symbol in code search: the dense texts and the lexical text.

A question such as "check if a variable is iterable" is prose, a function is code: MiniLM matches prose
to prose far better than prose to code, and BM25 only matches the words a symbol actually contains. So
one symbol gets several texts, each good at something different:

- the *summary* (dense): the name split into words plus the docstring's opening, or, for a symbol without
  a docstring, the name words, the parameter words and the first lines of code. Close to how people ask.
- the *code* (dense): the signature and the excerpt as written, for queries phrased in code terms.
- the *lexical* text (BM25): path, qualname, signature, docstring and excerpt through ``code_terms``, so
  ``validateToken`` is found by "validate token" and by itself.

The index stores one dense point per dense text and scores a symbol by its best one (max-sim).
"""

from __future__ import annotations

import re

import msgspec

from codememory.events import Symbol
from codememory.lexical import code_terms, identifier_parts

__all__ = [
    "CODE_CHARS",
    "REPRESENTATIONS",
    "SUMMARY_CHARS",
    "SymbolDocument",
    "name_words",
    "symbol_document",
]

REPRESENTATIONS = ("summary", "code")  # what each of a SymbolDocument's dense texts is, in order
SUMMARY_CHARS = 400  # MiniLM reads 256 word pieces: the opening of a docstring carries its meaning
CODE_CHARS = 1000
LEXICAL_CHARS = 4000

_PARAMS = re.compile(r"\((.*)\)", re.DOTALL)
_NOISE_PARAMS = frozenset({"self", "cls", "args", "kwargs"})


class SymbolDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The texts one symbol is indexed by; ``dense_texts[0]`` is the summary, then the code."""

    qualname: str
    path: str
    dense_texts: tuple[str, ...]
    lexical_text: str


def name_words(name: str) -> str:
    """``_format_json`` -> ``format json``; ``HTTPServer.getURL`` -> ``http server get url``."""
    return " ".join(identifier_parts(name))


def _docstring_opening(docstring: str) -> str:
    """The first paragraph, on one line (later paragraphs are parameters and examples)."""
    paragraph = docstring.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())[:SUMMARY_CHARS]


def _param_words(signature: str) -> str:
    match = _PARAMS.search(signature)
    if match is None:
        return ""
    words = [w for w in identifier_parts(match.group(1)) if w not in _NOISE_PARAMS and not w.isdigit()]
    return " ".join(dict.fromkeys(words))


def _code(symbol: Symbol) -> str:
    excerpt = symbol.excerpt.strip()
    signature = symbol.signature.strip()
    if signature and not excerpt.startswith(signature):
        excerpt = f"{signature}\n{excerpt}" if excerpt else signature
    return excerpt[:CODE_CHARS]


def _summary(symbol: Symbol) -> str:
    words = name_words(symbol.name) or symbol.name
    opening = _docstring_opening(symbol.docstring)
    if opening:
        return f"{words}: {opening}"
    params = _param_words(symbol.signature)
    head = " ".join(symbol.excerpt.split())[: SUMMARY_CHARS // 2]
    parts = [f"{symbol.kind} {words}", f"({params})" if params else "", head]
    return " ".join(p for p in parts if p)


def symbol_document(symbol: Symbol, path: str) -> SymbolDocument:
    """The dense texts and the lexical text of ``symbol`` defined in ``path``."""
    summary = _summary(symbol)
    code = _code(symbol)
    dense = (summary, code) if code and code != summary else (summary,)
    lexical_raw = "\n".join(
        t for t in (path, symbol.qualname, symbol.signature, symbol.docstring, symbol.excerpt) if t
    )
    return SymbolDocument(
        qualname=symbol.qualname,
        path=path,
        dense_texts=dense,
        lexical_text=code_terms(lexical_raw[:LEXICAL_CHARS]),
    )
