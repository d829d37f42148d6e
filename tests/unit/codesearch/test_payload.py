"""The code index's payload layout: what ``prepared`` packs is what a hit reads back."""

from __future__ import annotations

from codememory.codesearch.fusion import FusionParts
from codememory.codesearch.payload import DESCRIBED, code_hit, described_digest, pack_described, prefixes
from codememory.events import Symbol


def _symbol(docstring: str) -> Symbol:
    return Symbol(
        qualname="shop.cart.Cart.total",
        name="total",
        kind="method",
        start_line=10,
        end_line=24,
        signature="def total(self) -> int",
        docstring=docstring,
    )


def test_a_hit_reads_back_what_was_packed_with_the_docstring_opening_only() -> None:
    payload = {
        "qualname": "shop.cart.Cart.total",
        "repo": "shop",
        "path": "shop/cart.py",
        DESCRIBED: pack_described(_symbol("The cart's total.\n\nIn cents, taxes included."), "code text"),
    }
    parts = FusionParts(dense=0.5, lexical=None, dense_rank=1, lexical_rank=0, fused=0.1)
    hit = code_hit(payload, parts)
    assert (hit.kind, hit.signature, hit.docstring) == (
        "method",
        "def total(self) -> int",
        "The cart's total.",
    )
    assert (hit.start_line, hit.end_line, hit.path, hit.parts) == (10, 24, "shop/cart.py", parts)


def test_the_digest_follows_the_text_the_vector_was_made_from() -> None:
    one = {DESCRIBED: pack_described(_symbol("doc"), "def total(self): return 1")}
    same = {DESCRIBED: pack_described(_symbol("another doc"), "def total(self): return 1")}
    other = {DESCRIBED: pack_described(_symbol("doc"), "def total(self): return 2")}
    assert described_digest(one) == described_digest(same) != described_digest(other)


def test_prefixes_are_whole_segments() -> None:
    assert prefixes("a/bc/d.py") == ["a", "a/bc", "a/bc/d.py"]
    assert prefixes("setup.py") == ["setup.py"]
