"""How a symbol's point payload is laid out in the code index: written in ``prepared``, read in ``index``.

The fields a search filters by (tenant, repo, ``dirs`` for ``path_prefix``, the representation) are
payload fields of their own with a payload index each (``CODE_KEYWORD_FIELDS``); ``path`` and
``qualname`` are read from hits, never filtered. What no filter reads (kind, signature, docstring
opening, lines, the digest of the text the vector was made from) is one JSON string, ``DESCRIBED``:
qdrant-edge converts each payload value with failed numeric parses first (about 6 us a string, and a
symbol is two points), so packed, a Django index spends about a third less building its points.
Packing and unpacking live here together so the two sides cannot drift apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from codememory.codesearch.fusion import FusionParts
from codememory.events import Symbol
from codememory.vectorstore import IndexPoint

__all__ = [
    "CODE_KEYWORD_FIELDS",
    "DESCRIBED",
    "CodeHit",
    "code_hit",
    "described_digest",
    "pack_described",
    "prefixes",
    "with_shared",
]

# A shard made before this list kept payload indexes on path and qualname; they change no result.
CODE_KEYWORD_FIELDS = ("tenant", "repo", "dirs", "rep")
DESCRIBED = "described"
_json = msgspec.json


@dataclass(frozen=True, kw_only=True)
class CodeHit:
    qualname: str
    repo: str
    path: str
    kind: str
    signature: str
    docstring: str
    start_line: int
    end_line: int
    parts: FusionParts


def pack_described(symbol: Symbol, text: str) -> str:
    """Kind, signature, docstring opening, lines and the text's digest: what no filter reads, packed."""
    docstring = symbol.docstring.strip().split("\n", 1)[0][:200]
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return _json.encode(
        (symbol.kind, symbol.signature, docstring, symbol.start_line, symbol.end_line, digest)
    ).decode()


def _unpack(payload: Mapping[str, Any]) -> tuple[str, str, str, int, int, str]:
    kind, signature, docstring, start, end, digest = _json.decode(payload[DESCRIBED])
    return str(kind), str(signature), str(docstring), int(start), int(end), str(digest)


def described_digest(payload: Mapping[str, Any]) -> str:
    """The digest of the text a point's vector was made from (unchanged text: keep the vector)."""
    return _unpack(payload)[5]


def code_hit(payload: Mapping[str, Any], parts: FusionParts) -> CodeHit:
    kind, signature, docstring, start_line, end_line, _ = _unpack(payload)
    return CodeHit(
        qualname=str(payload["qualname"]),
        repo=str(payload["repo"]),
        path=str(payload["path"]),
        kind=kind,
        signature=signature,
        docstring=docstring,
        start_line=start_line,
        end_line=end_line,
        parts=parts,
    )


def prefixes(path: str) -> list[str]:
    """``a/b/c.py`` -> ``a``, ``a/b``, ``a/b/c.py``: a ``path_prefix`` matches on whole segments."""
    segments = path.split("/")
    return ["/".join(segments[: i + 1]) for i in range(len(segments))]


def with_shared(point: IndexPoint, shared: Mapping[str, Any]) -> IndexPoint:
    """``point`` with the payload fields every point of its file has (tenant, repo, path, dirs)."""
    return IndexPoint(
        id=point.id, payload={**shared, **point.payload}, dense=point.dense, sparse=point.sparse
    )
