"""The code projection's fold: one bad event in LOG never stops it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from codestack import code_core  # type: ignore[import-not-found]
from structlog.testing import capture_logs

from codememory.codegraph import queries
from codememory.events import Envelope, InMemoryEventLog, Symbol, SymbolsExtracted, new_envelope


def _file(path: str, *qualnames: str) -> SymbolsExtracted:
    module = path.removesuffix(".py")
    symbols = [Symbol(qualname=module, name=module, kind="module", start_line=1, end_line=9)]
    for line, qualname in enumerate(qualnames, start=1):
        name = qualname.rsplit(".", 1)[-1]
        symbols.append(Symbol(qualname=qualname, name=name, kind="function", start_line=line, end_line=line))
    return SymbolsExtracted(
        repo="shop", path=path, content_hash=f"h-{path}", module=module, symbols=tuple(symbols)
    )


def _envelope(n: int, fact: SymbolsExtracted) -> Envelope:
    return new_envelope(fact, event_id=f"e{n}", tenant="t1", occurred_at=datetime.now(UTC))


def test_an_old_event_that_repeats_a_qualname_is_folded_but_left_out_of_code_search(tmp_path: Path) -> None:
    """Events recorded before codefacts refused repeated qualnames may still be in LOG."""
    projection = code_core(tmp_path, InMemoryEventLog()).live.projection
    repeated = _file("pay.py", "pay.charge", "pay.refund", "pay.charge")
    with capture_logs() as logs:
        applied = projection.apply_batch(
            [(1, _envelope(1, repeated)), (2, _envelope(2, _file("api.py", "api.sell")))]
        )
    assert applied == 2 and projection.last_seq == 2 and projection.skipped == 0
    graph = projection.graphs.graph("t1")
    assert {i.qualname for i in queries.symbol_info(graph, "charge")} == {"pay.charge"}
    skipped = [e for e in logs if e["event"] == "code_index_skipped"]
    assert len(skipped) == 1 and "duplicate qualnames in pay.py" in skipped[0]["reason"]
    found = {h.path for h in projection.code_index.search("t1", "charge refund sell", None, mode="lexical")}
    assert found == {"api.py"}  # the file after it was indexed
