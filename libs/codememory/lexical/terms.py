"""Code-aware terms: make identifiers findable by a tokenizer that was built for prose.

BM25's word tokenizer lowercases ``validateToken`` into the single token ``validatetoken`` and keeps
``sha256sum`` whole, so a memory about ``validateToken(...)`` never matches the question "how do we
validate the token?". ``code_terms`` appends the parts of each compound identifier (camelCase,
PascalCase, snake_case, SCREAMING_CASE, kebab-case, dotted names, paths, letter/digit boundaries) to the
text, and keeps the original, so both the exact identifier and its words match. Long hex runs (hashes,
UUID parts) stay whole: split, they would only add noise terms such as ``fc`` or ``c``.
"""

from __future__ import annotations

import functools
import re

__all__ = ["code_terms", "identifier_parts"]

# A compound: word characters joined by the punctuation code uses inside names and paths.
_COMPOUND = re.compile(r"[\w$]+(?:[./\\:\-]+[\w$]+)*")
_SEGMENT_SEP = re.compile(r"[./\\:\-]+")
_PIECE_SEP = re.compile(r"[./\\:\-_$]+")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}")
_MAX_COMPOUND = 160


_RUNS = re.compile(r"\d+|[^\W\d_]+")  # digits, or letters
# ASCII case changes: lower -> upper, and before the last capital of an acronym followed by lowercase
_ASCII_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _camel_split(run: str) -> list[str]:
    """Split letters at case changes: ``HTTPServerError`` -> ``HTTP``, ``Server``, ``Error``."""
    if run.islower() or run.isupper() or run[1:].islower():
        return [run]  # no case change to split at (most words of code and prose)
    if run.isascii():
        return _ASCII_CAMEL.split(run)  # the same boundaries as below, in one pass
    words: list[str] = []
    start = 0
    for i in range(1, len(run)):
        prev, cur = run[i - 1], run[i]
        nxt = run[i + 1] if i + 1 < len(run) else ""
        lower_to_upper = prev.islower() and cur.isupper()
        acronym_end = prev.isupper() and cur.isupper() and nxt.islower()
        if lower_to_upper or acronym_end:
            words.append(run[start:i])
            start = i
    words.append(run[start:])
    return words


def _piece_words(piece: str) -> list[str]:
    """Words of one separator-free piece, split at case changes and letter/digit boundaries."""
    if _HEX_RUN.fullmatch(piece) and any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece):
        return [piece]
    words: list[str] = []
    for run in _RUNS.findall(piece):
        words.extend([run] if run[0].isdigit() else _camel_split(run))
    return words


@functools.lru_cache(maxsize=1 << 16)
def identifier_parts(token: str) -> tuple[str, ...]:
    """The lowercase words of an identifier or path, in order: ``os.path.join`` -> os, path, join.

    Kept per token like ``_expansions``: a compound's segments and a symbol's names recur."""
    words: list[str] = []
    for piece in _PIECE_SEP.split(token):
        if piece:
            words.extend(w.lower() for w in _piece_words(piece))
    return tuple(words)


@functools.lru_cache(maxsize=1 << 16)
def _expansions(compound: str) -> tuple[str, ...]:
    """Extra terms for one compound: its words, then any inner segment that is itself an identifier.

    Kept per compound: code repeats its identifiers (``self``, ``os.path.join``, a module's own names),
    and splitting them is most of what indexing a symbol's text costs.
    """
    if compound.isalpha() and (compound.islower() or compound[1:].islower()):
        return ()  # a plain word (most of prose): nothing to split
    if len(compound) > _MAX_COMPOUND or not any(c.isalpha() for c in compound):
        return ()
    parts = identifier_parts(compound)
    if len(parts) <= 1:
        return ()
    extra = [" ".join(parts)]
    segments = [s for s in _SEGMENT_SEP.split(compound) if s]
    if len(segments) > 1:
        extra.extend(s for s in segments if len(identifier_parts(s)) > 1)
    return tuple(extra)


def code_terms(text: str) -> str:
    """``text`` followed by the split forms of its code identifiers, each distinct form once.

    >>> code_terms("call validateToken() in src/auth/jwt_utils.py")
    'call validateToken() in src/auth/jwt_utils.py\\nvalidate token src auth jwt utils py jwt_utils'
    """
    seen: set[str] = set()
    extras: list[str] = []
    for compound in dict.fromkeys(_COMPOUND.findall(text)):  # a repeated compound adds nothing new
        for term in _expansions(compound):
            if term not in seen:
                seen.add(term)
                extras.append(term)
    return f"{text}\n{' '.join(extras)}" if extras else text
