"""Files made ready for code search ahead of the fold: the same points, handed over once, bounded."""

from __future__ import annotations

from pathlib import Path

from test_index import sym  # type: ignore[import-not-found]

from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex, open_code_index
from codememory.codesearch.prepared import PreparedFiles, prepare_symbols
from codememory.lexical import SparseEncoder
from codememory.projection import CodeProjection
from codememory.vectorstore import IndexFilter

SYMBOLS = [sym("app.api.list_users", "List the users."), sym("app.api.drop_user")]


def test_prepared_symbols_index_exactly_what_the_fold_would(tmp_path: Path) -> None:
    encoder = SparseEncoder()
    ahead = prepare_symbols("t1", "r1", "src/app/api.py", SYMBOLS, encoder)
    found = []
    for name, prepared in (("own", None), ("ahead", ahead)):
        shard = open_code_index(tmp_path / name, 4)
        code = CodeIndex(shard, encoder=encoder)
        code.upsert_file("t1", "r1", "src/app/api.py", SYMBOLS, prepared=prepared)
        hits = code.search("t1", "list users", None, limit=5, path_prefix="src/app")
        points = {p.id: (p.payload, p.sparse) for p in shard.scroll(IndexFilter(), with_vectors=True)}
        found.append((points, hits))
        shard.close()
    (own, own_hits), (early, early_hits) = found
    assert len(own) == 4 and own == early and own_hits == early_hits
    assert own_hits[0].qualname == "app.api.list_users"
    payload = next(iter(own.values()))[0]
    assert payload["dirs"] == ["src", "src/app", "src/app/api.py"] and payload["tenant"] == "t1"  # type: ignore[index]


def test_a_rewritten_file_keeps_its_shared_fields_and_drops_gone_symbols(tmp_path: Path) -> None:
    shard = open_code_index(tmp_path / "code", 4)
    code = CodeIndex(shard)
    code.upsert_file("t1", "r1", "src/app/api.py", SYMBOLS)
    code.upsert_file("t1", "r1", "src/app/api.py", [SYMBOLS[0], sym("app.api.add_user")])
    points = list(shard.scroll(IndexFilter(), with_vectors=True))
    assert {p.payload["qualname"] for p in points} == {"app.api.list_users", "app.api.add_user"}
    assert all(p.payload["path"] == "src/app/api.py" and p.payload["repo"] == "r1" for p in points)
    assert [h.qualname for h in code.search("t1", "add user", None, limit=1, path_prefix="src")] == [
        "app.api.add_user"
    ]
    shard.close()


def test_prepared_files_are_taken_once_for_their_own_file_and_bounded() -> None:
    encoder = SparseEncoder()
    ready = prepare_symbols("t1", "r1", "a.py", SYMBOLS, encoder)
    files = PreparedFiles(encoder, limit=2)
    for event in ("e1", "e2", "e3"):
        files.put(event, "a.py", ready)
    assert len(files) == 2 and files.take("e1", "a.py", 2) is None  # the oldest went
    assert files.take("e2", "b.py", 2) is None  # another file's: not used (and gone)
    assert files.take("e3", "a.py", 3) is None  # not the event's symbols
    files.put("e4", "a.py", ready)
    assert files.take("e4", "a.py", 2) == ready and files.take("e4", "a.py", 2) is None


def test_a_fold_with_other_bm25_settings_ignores_what_was_prepared(tmp_path: Path) -> None:
    shard = open_code_index(tmp_path / "code", 4)
    prepared = PreparedFiles(SparseEncoder(k=2.0))
    other = CodeProjection(TenantGraphs(), CodeIndex(shard), shard=shard, prepared=prepared)
    same = CodeProjection(
        TenantGraphs(), CodeIndex(shard), shard=shard, prepared=PreparedFiles(SparseEncoder())
    )
    assert other.prepared is None and same.prepared is not None
    shard.close()
