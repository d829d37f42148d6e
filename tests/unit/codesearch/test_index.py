"""CodeIndex on a real Qdrant Edge shard: writes, replacement, tenants, filters and the three modes."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from codememory.codesearch import CodeIndex, FusionConfig, InvalidCodeInputError, open_code_index
from codememory.events import Symbol
from codememory.vectorstore import EdgeVectorIndex, IndexFilter


def unit(*xs: float) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in xs))
    return tuple(x / norm for x in xs)


def sym(qualname: str, doc: str = "", line: int = 1) -> Symbol:
    name = qualname.rsplit(".", 1)[-1]
    return Symbol(
        qualname=qualname,
        name=name,
        kind="function",
        start_line=line,
        end_line=line + 4,
        signature=f"def {name}(value):",
        docstring=doc,
        excerpt=f"return {name}_impl(value)",
    )


@pytest.fixture
def shard(tmp_path: Path) -> Iterator[EdgeVectorIndex]:
    index = open_code_index(tmp_path / "code", 4)
    yield index
    index.close()


@pytest.fixture
def code(shard: EdgeVectorIndex) -> CodeIndex:
    return CodeIndex(shard)


def test_lexical_search_finds_split_identifiers_with_their_payload(code: CodeIndex) -> None:
    code.upsert_file("t1", "repo", "src/auth/jwt.py", [sym("auth.jwt.validateToken", "Check a token.", 10)])
    code.upsert_file("t1", "repo", "src/db.py", [sym("db.open_pool", "Open the connection pool.")])
    hits = code.search("t1", "validate the token", None, limit=5)
    assert [h.qualname for h in hits] == ["auth.jwt.validateToken"]
    hit = hits[0]
    assert (hit.repo, hit.path, hit.kind, hit.start_line, hit.end_line) == (
        "repo",
        "src/auth/jwt.py",
        "function",
        10,
        14,
    )
    assert hit.signature == "def validateToken(value):" and hit.docstring == "Check a token."
    assert hit.parts.lexical is not None and hit.parts.lexical > 0 and hit.parts.dense is None


def test_tenants_never_see_each_others_code(code: CodeIndex) -> None:
    code.upsert_file("t1", "repo", "a.py", [sym("a.parse_config")], {"a.parse_config": [unit(1, 0, 0, 0)]})
    code.upsert_file("t2", "repo", "a.py", [sym("a.parse_config")], {"a.parse_config": [unit(1, 0, 0, 0)]})
    for tenant in ("t1", "t2"):
        hits = code.search(tenant, "parse config", unit(1, 0, 0, 0), limit=10)
        assert len(hits) == 1
    assert code.search("t3", "parse config", unit(1, 0, 0, 0), limit=10) == []


def test_dense_search_uses_the_best_of_a_symbols_texts(code: CodeIndex) -> None:
    code.upsert_file(
        "t", "r", "m.py", [sym("m.alpha"), sym("m.beta")],
        {"m.alpha": [unit(1, 0, 0, 0), unit(0, 1, 0, 0)], "m.beta": [unit(0, 0, 1, 0), unit(1, 1, 0, 0)]},
    )  # fmt: skip
    hits = code.search("t", "", unit(0, 1, 0, 0), limit=2, mode="dense")
    assert hits[0].qualname == "m.alpha" and hits[0].parts.dense == pytest.approx(1.0)
    assert hits[1].qualname == "m.beta" and hits[1].parts.dense == pytest.approx(math.sqrt(0.5))
    summary_only = code.search("t", "", unit(0, 1, 0, 0), limit=2, mode="dense:summary")
    assert summary_only[0].parts.dense == pytest.approx(0.0, abs=1e-6)


def test_reindexing_a_file_drops_symbols_that_left_it(code: CodeIndex, shard: EdgeVectorIndex) -> None:
    code.upsert_file("t", "r", "m.py", [sym("m.old_helper"), sym("m.kept")])
    code.upsert_file("t", "r", "m.py", [sym("m.kept")])
    assert {p.payload["qualname"] for p in shard.scroll(IndexFilter(equals={"tenant": "t"}))} == {"m.kept"}
    assert code.search("t", "old helper", None, limit=5) == []


def test_remove_file_forgets_only_that_file(code: CodeIndex) -> None:
    code.upsert_file("t", "r", "a.py", [sym("a.load_user")])
    code.upsert_file("t", "r", "b.py", [sym("b.load_group")])
    assert code.remove_file("t", "r", "a.py") == 2  # summary and code points
    assert [h.qualname for h in code.search("t", "load", None, limit=5)] == ["b.load_group"]
    assert code.remove_file("t", "r", "a.py") == 0


def test_vectors_arrive_later_and_survive_an_unchanged_reindex(code: CodeIndex) -> None:
    code.upsert_file("t", "r", "m.py", [sym("m.f"), sym("m.g")])
    assert code.search("t", "", unit(1, 0, 0, 0), limit=5, mode="dense") == []
    done = code.set_vectors(
        "t", "r", "m.py", ["m.f", "m.f", "m.gone"], [unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(0, 0, 1, 0)]
    )
    assert done == 2
    code.upsert_file("t", "r", "m.py", [sym("m.f"), sym("m.g")])  # same texts: vectors kept
    assert [h.qualname for h in code.search("t", "", unit(1, 0, 0, 0), limit=5, mode="dense")] == ["m.f"]
    code.upsert_file("t", "r", "m.py", [sym("m.f", "Now documented."), sym("m.g")])  # summary changed
    hits = code.search("t", "", unit(1, 0, 0, 0), limit=5, mode="dense:summary")
    assert hits == []


def test_repo_and_path_prefix_filters_match_whole_segments(code: CodeIndex) -> None:
    code.upsert_file("t", "r1", "src/api/users.py", [sym("api.users.list_users")])
    code.upsert_file("t", "r1", "src/apiv2/users.py", [sym("apiv2.users.list_users")])
    code.upsert_file("t", "r2", "src/api/users.py", [sym("api.users.list_users")])
    hits = code.search("t", "list users", None, limit=10, repo="r1", path_prefix="src/api/")
    assert [(h.repo, h.path) for h in hits] == [("r1", "src/api/users.py")]
    assert len(code.search("t", "list users", None, limit=10)) == 3


def test_hybrid_hits_explain_both_parts(code: CodeIndex) -> None:
    code.upsert_file("t", "r", "m.py", [sym("m.parse_date"), sym("m.send_mail")],
                     {"m.parse_date": [unit(1, 0, 0, 0)], "m.send_mail": [unit(0, 1, 0, 0)]})  # fmt: skip
    hits = code.search("t", "parse date", unit(1, 0.1, 0, 0), limit=2)
    top = hits[0]
    assert top.qualname == "m.parse_date"
    assert top.parts.dense is not None and top.parts.lexical is not None
    assert top.parts.dense_rank == 1 and top.parts.lexical_rank == 1 and top.parts.fused > hits[1].parts.fused


def test_hybrid_completes_scores_the_lists_did_not_reach(shard: EdgeVectorIndex) -> None:
    code = CodeIndex(shard, config=FusionConfig(depth=1))  # each list reads one candidate only
    code.upsert_file("t", "r", "m.py", [sym("m.parse_date"), sym("m.send_mail")],
                     {"m.parse_date": [unit(0, 1, 0, 0), unit(0, 1, 0, 0)],
                      "m.send_mail": [unit(1, 0, 0, 0), unit(1, 0, 0, 0)]})  # fmt: skip
    parts = {h.qualname: h.parts for h in code.search("t", "parse date", unit(1, 0.1, 0, 0), limit=5)}
    assert set(parts) == {"m.parse_date", "m.send_mail"}
    # parse_date came only from BM25, send_mail only from the dense lists: each got the other score
    assert parts["m.parse_date"].dense == pytest.approx(unit(1, 0.1, 0, 0)[1], abs=1e-5)
    assert parts["m.send_mail"].dense == pytest.approx(unit(1, 0.1, 0, 0)[0], abs=1e-5)
    assert parts["m.parse_date"].lexical > 0 and parts["m.send_mail"].lexical == 0.0
    assert parts["m.parse_date"].name == 1.0 and parts["m.send_mail"].name == 0.0


def test_bad_input_gets_a_typed_error(code: CodeIndex) -> None:
    with pytest.raises(InvalidCodeInputError):
        code.upsert_file("", "r", "m.py", [sym("m.f")])
    with pytest.raises(InvalidCodeInputError):
        code.upsert_file("t", "r", "m.py", [sym("m.f"), sym("m.f")])
    with pytest.raises(InvalidCodeInputError):
        code.upsert_file("t", "r", "m.py", [sym("m.f")], {"m.other": [unit(1, 0, 0, 0)]})
    with pytest.raises(InvalidCodeInputError):
        code.search("t", "x", None, limit=0)
    with pytest.raises(InvalidCodeInputError):
        code.search("t", "x", None, mode="dense")
    with pytest.raises(InvalidCodeInputError):
        code.set_vectors("t", "r", "m.py", ["m.f"], [])


def test_a_new_code_index_over_a_written_shard_knows_each_files_points(shard: EdgeVectorIndex) -> None:
    """The points of each file are kept in memory as they are written; an index opened over a shard
    that already holds points learns them first, so re-indexing and removal still replace them."""
    first = CodeIndex(shard)
    first.upsert_file("t", "r", "m.py", [sym("m.old_helper"), sym("m.kept")], {"m.kept": [unit(1, 0, 0, 0)]})
    first.upsert_file("t", "r", "n.py", [sym("n.other")])
    again = CodeIndex(shard)
    again.upsert_file("t", "r", "m.py", [sym("m.kept")])  # same text: the vector is kept
    assert {p.payload["qualname"] for p in shard.scroll(IndexFilter(equals={"path": "m.py"}))} == {"m.kept"}
    assert [h.qualname for h in again.search("t", "", unit(1, 0, 0, 0), limit=5, mode="dense")] == ["m.kept"]
    assert again.set_vectors("t", "r", "m.py", ["m.old_helper"], [unit(0, 1, 0, 0)]) == 0  # left the file
    assert again.remove_file("t", "r", "n.py") == 2
    assert shard.count(IndexFilter(equals={"path": "n.py"})) == 0
