"""What the graph keeps of a symbol's docstring (``symbol_doc``)."""

from __future__ import annotations

from codememory.codegraph.model import DOC_CHARS, symbol_doc


def test_the_first_paragraph_with_its_whitespace_folded() -> None:
    doc = "Open the shard\n    the gateway serves from.\n\n    Raises ShardError when it is locked."
    assert symbol_doc(doc) == "Open the shard the gateway serves from."


def test_a_long_paragraph_is_cut_to_the_cap_with_an_ellipsis() -> None:
    kept = symbol_doc("word " * 200)
    assert len(kept) == DOC_CHARS and kept.endswith("…")
    assert symbol_doc("") == ""
