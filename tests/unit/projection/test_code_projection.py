"""The code projection's fold: old events it can only half index, poison it must refuse."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from codememory.codegraph import TenantGraphs, queries
from codememory.codesearch import CodeIndex, CodeIndexError, open_code_index
from codememory.events import (
    Envelope,
    LogRecord,
    Symbol,
    SymbolsEmbedded,
    SymbolsExtracted,
    encode_envelope,
    new_envelope,
)
from codememory.lexical import SparseEncoder
from codememory.projection import CodeProjection, fold_records
from codememory.vectorstore import IndexUnavailableError

DIM = 8


def _projection(tmp_path: Path) -> CodeProjection:
    shard = open_code_index(tmp_path / "code", DIM)
    return CodeProjection(TenantGraphs(), CodeIndex(shard, encoder=SparseEncoder()), shard=shard)


def _file(path: str, *qualnames: str) -> SymbolsExtracted:
    module = path.removesuffix(".py")
    symbols = [Symbol(qualname=module, name=module, kind="module", start_line=1, end_line=9)]
    for line, qualname in enumerate(qualnames, start=1):
        name = qualname.rsplit(".", 1)[-1]
        symbols.append(Symbol(qualname=qualname, name=name, kind="function", start_line=line, end_line=line))
    return SymbolsExtracted(
        repo="shop", path=path, content_hash=f"h-{path}", module=module, symbols=tuple(symbols)
    )


def _envelope(n: int, fact: SymbolsExtracted | SymbolsEmbedded) -> Envelope:
    return new_envelope(fact, event_id=f"e{n}", tenant="t1", occurred_at=datetime.now(UTC))


def _vectors(path: str, size: int) -> SymbolsEmbedded:
    module = path.removesuffix(".py")
    return SymbolsEmbedded(
        repo="shop",
        path=path,
        content_hash=f"h-{path}",
        model="m",
        qualnames=(module,),
        vectors=((0.5,) * size,),
    )


def test_an_old_event_that_repeats_a_qualname_is_folded_but_left_out_of_code_search(tmp_path: Path) -> None:
    """Events recorded before codefacts refused repeated qualnames may still be in LOG."""
    projection = _projection(tmp_path)
    repeated = _file("pay.py", "pay.charge", "pay.refund", "pay.charge")
    with capture_logs() as logs:
        applied = projection.apply_batch(
            [(1, _envelope(1, repeated)), (2, _envelope(2, _file("api.py", "api.sell")))]
        )
    assert applied == 2 and projection.last_seq == 2 and projection.poisoned == 0
    graph = projection.graphs.graph("t1")
    assert {i.qualname for i in queries.symbol_info(graph, "charge")} == {"pay.charge"}
    skipped = [e for e in logs if e["event"] == "code_index_skipped"]
    assert len(skipped) == 1 and "duplicate qualnames in pay.py" in skipped[0]["reason"]
    found = {h.path for h in projection.code_index.search("t1", "charge refund sell", None, mode="lexical")}
    assert found == {"api.py"}  # the file after it was indexed
    projection.shard.close()


def test_a_vector_of_the_wrong_size_is_refused_and_stops_before_it(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    batch = [(1, _envelope(1, _file("pay.py", "pay.charge"))), (2, _envelope(2, _vectors("pay.py", DIM + 3)))]
    with pytest.raises(CodeIndexError, match="dimensions"):
        projection.apply_batch(batch)
    assert projection.last_seq == 1  # the runner passes event 2 as poison from here
    projection.shard.close()


def test_the_runner_passes_the_bad_vector_and_indexes_the_rest(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    facts = [
        _file("pay.py", "pay.charge"),
        _vectors("pay.py", 3),
        _vectors("pay.py", DIM),
        _file("api.py", "api.sell"),
    ]
    records = [
        LogRecord(seq=i, subject="s", data=encode_envelope(_envelope(i, f))) for i, f in enumerate(facts, 1)
    ]
    folded = fold_records(projection, records, name="code")
    assert folded.applied == 3 and [p.seq for p in folded.poisoned] == [2]
    assert projection.poisoned == 1 and projection.last_seq == 4
    assert {h.path for h in projection.code_index.search("t1", "sell", None, mode="lexical")} == {"api.py"}
    projection.shard.close()


def test_digest_is_stable_across_a_rebuild(tmp_path: Path) -> None:
    one, two = _projection(tmp_path / "a"), _projection(tmp_path / "b")
    batch = [(1, _envelope(1, _file("pay.py", "pay.charge"))), (2, _envelope(2, _file("api.py", "api.sell")))]
    one.apply_batch(batch)
    two.apply_batch(batch[:1])
    two.apply_batch(batch)
    assert one.digest() == two.digest()
    one.shard.close()
    two.shard.close()


def test_a_batchs_files_are_searchable_when_its_position_moves(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    batch = [(1, _envelope(1, _file("pay.py", "pay.charge"))), (2, _envelope(2, _file("api.py", "api.sell")))]
    assert projection.apply_batch(batch) == 2
    assert projection.last_seq == 2
    assert {h.path for h in projection.code_index.search("t1", "charge sell", None, mode="lexical")} == {
        "pay.py",
        "api.py",
    }
    projection.shard.close()


def test_a_code_search_write_that_fails_leaves_the_position_before_its_event(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    projection.apply_batch([(1, _envelope(1, _file("pay.py", "pay.charge")))])
    batch = [(2, _envelope(2, _file("api.py", "api.sell"))), (3, _envelope(3, _file("cart.py", "cart.add")))]
    projection.shard.close()  # the index is away: transient, the runner retries from the position
    with pytest.raises(IndexUnavailableError):
        projection.apply_batch(batch)
    assert projection.last_seq == 1
    assert "api.py" in queries.indexed_files(projection.graphs.graph("t1"), "shop")  # its graph part is in
    projection.shard.reopen()
    assert projection.apply_batch(batch) == 2  # the graph skips what it has; code search writes them
    assert projection.last_seq == 3
    found = {h.path for h in projection.code_index.search("t1", "sell add", None, mode="lexical")}
    assert found == {"api.py", "cart.py"}
    projection.shard.close()


def test_a_poison_event_keeps_the_files_before_it(tmp_path: Path) -> None:
    projection = _projection(tmp_path)
    batch = [(1, _envelope(1, _file("pay.py", "pay.charge"))), (2, _envelope(2, _vectors("pay.py", DIM + 3)))]
    with pytest.raises(CodeIndexError, match="dimensions"):
        projection.apply_batch(batch)
    assert projection.last_seq == 1
    assert [h.path for h in projection.code_index.search("t1", "charge", None, mode="lexical")] == ["pay.py"]
    projection.shard.close()
