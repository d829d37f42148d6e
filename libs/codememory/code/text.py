"""Small text helpers for symbols: signature, excerpt, digest, doc comment cleaning.

Why it exists: every language extractor needs the same bounded, one-line signature, the same excerpt
budget and the same digest, so a symbol reads alike whatever language it came from and the event
stays small.
"""

from __future__ import annotations

import hashlib
import inspect
import re

SIGNATURE_MAX = 200
DOCSTRING_MAX = 1000
EXCERPT_MAX = 600
EXCERPT_LINES = 12
_WS = re.compile(r"\s+")
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")


def content_hash(source: bytes) -> str:
    """A file's content hash: the first 32 hex characters (128 bits) of its sha256."""
    return hashlib.sha256(source).hexdigest()[:32]


def digest(text: bytes) -> str:
    """A symbol's digest: 16 hex characters of the sha256 of its source text."""
    return hashlib.sha256(text).hexdigest()[:16]


def one_line(raw: bytes, limit: int = SIGNATURE_MAX) -> str:
    """Collapse whitespace to one line, drop a trailing ``{`` or ``:``, cut at ``limit`` characters."""
    text = _WS.sub(" ", raw.decode("utf-8", "replace")).strip()
    text = text.rstrip("{;").rstrip()
    if text.endswith(":") and not text.endswith("::"):
        text = text[:-1].rstrip()
    return text[:limit]


def excerpt(raw: bytes) -> str:
    """The first lines of a body, dedented, within ``EXCERPT_MAX`` characters."""
    lines = raw[: EXCERPT_MAX * 3].decode("utf-8", "replace").split("\n", EXCERPT_LINES)[:EXCERPT_LINES]
    rest = [line.rstrip() for line in lines[1:]]
    indents = [len(line) - len(line.lstrip()) for line in rest if line]
    cut = min(indents) if indents else 0
    text = "\n".join([lines[0].lstrip("\ufeff").strip(), *(line[cut:] for line in rest)]).strip()
    return text[:EXCERPT_MAX]


def python_string(raw: bytes) -> str:
    """The value of a Python string literal used as a docstring (prefix and quotes removed, cleaned)."""
    text = _STRING_PREFIX.sub("", raw.decode("utf-8", "replace"), count=1)
    for quote in ('"""', "'''", '"', "'"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            text = text[len(quote) : -len(quote)]
            break
    return inspect.cleandoc(text)[:DOCSTRING_MAX]


def clean_comment(comments: list[str]) -> str:
    """Doc comment lines (``///``, ``//``, ``/** */``) without their markers, cleaned."""
    out: list[str] = []
    for comment in comments:
        body = comment.strip()
        if body.startswith("/*"):
            body = body[2:]
            body = body.removeprefix("*").removeprefix("!")
            body = body.removesuffix("*/")
            for line in body.splitlines():
                stripped = line.strip()
                out.append(stripped[1:].removeprefix(" ") if stripped.startswith("*") else stripped)
        else:
            for line in body.splitlines():
                stripped = line.strip().lstrip("/").removeprefix("!")
                out.append(stripped.removeprefix(" "))
    return inspect.cleandoc("\n".join(out)).strip()[:DOCSTRING_MAX]
