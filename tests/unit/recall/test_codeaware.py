from collections.abc import Mapping, Sequence

import pytest

from codememory.recall.codeaware import CodeWeights, rerank
from codememory.recall.recaller import RecallHit
from codememory.recall.scoring import ScoreParts


def _hit(memory_id: str, total: float) -> RecallHit:
    parts = ScoreParts(dense=0.0, lexical=0.0, recency=0.0, importance=0.0, scope=0.0, total=total)
    return RecallHit(memory_id=memory_id, payload={}, parts=parts)


class Relevance:
    def __init__(
        self,
        near: dict[str, float],
        central: dict[str, float] | None = None,
        suspect: dict[str, str] | None = None,
        about: dict[str, float] | None = None,
    ) -> None:
        self.near, self.central, self.suspect = near, central or {}, suspect or {}
        self.about = about or {}
        self.asked: list[Sequence[str]] = []
        self.queries: list[str] = []

    def proximity(self, memory_ids: Sequence[str], working_set: Sequence[str]) -> Mapping[str, float]:
        self.asked.append(working_set)
        return {m: self.near[m] for m in memory_ids if m in self.near}

    def centrality(self, memory_ids: Sequence[str]) -> Mapping[str, float]:
        return {m: self.central[m] for m in memory_ids if m in self.central}

    def suspects(self, memory_ids: Sequence[str]) -> Mapping[str, str]:
        return {m: self.suspect[m] for m in memory_ids if m in self.suspect}

    def named(self, memory_ids: Sequence[str], working_set: Sequence[str], query: str) -> Mapping[str, float]:
        self.queries.append(query)
        return {m: self.about[m] for m in memory_ids if m in self.about}


def test_a_memory_about_the_symbol_the_query_names_moves_above_its_file_neighbours() -> None:
    hits = [_hit("file", 0.50), _hit("edit", 0.45)]
    relevance = Relevance({"file": 1.0, "edit": 1.0}, about={"edit": 1.0})
    ranked = rerank(hits, relevance, ["click/_termui_impl.py"], CodeWeights(), "edit runs on closed contexts")
    assert [r.hit.memory_id for r in ranked] == ["edit", "file"]
    assert ranked[0].named == 1.0 and relevance.queries == ["edit runs on closed contexts"]
    # without a query (or with its weight 0) nothing is asked
    rerank(hits, relevance, ["click/_termui_impl.py"], CodeWeights())
    rerank(hits, relevance, ["click/_termui_impl.py"], CodeWeights(named=0.0), "edit")
    assert relevance.queries == ["edit runs on closed contexts"]


def test_memories_near_the_working_set_move_up() -> None:
    hits = [_hit("far", 0.50), _hit("near", 0.45)]
    ranked = rerank(hits, Relevance({"near": 1.0}), ["app/pay.py"], CodeWeights())
    assert [r.hit.memory_id for r in ranked] == ["near", "far"]
    assert ranked[0].graph == 1.0
    assert abs(ranked[0].hit.parts.total - 0.60) < 1e-9


def test_without_a_working_set_proximity_is_not_asked() -> None:
    relevance = Relevance({"a": 1.0})
    ranked = rerank([_hit("a", 0.3)], relevance, [], CodeWeights())
    assert relevance.asked == []
    assert ranked[0].graph == 0.0


def test_suspect_memories_rank_lower_and_say_why() -> None:
    hits = [_hit("stale", 0.50), _hit("fresh", 0.40)]
    ranked = rerank(hits, Relevance({}, suspect={"stale": "app.pay.charge changed"}), [], CodeWeights())
    assert [r.hit.memory_id for r in ranked] == ["fresh", "stale"]
    assert ranked[1].suspect == "app.pay.charge changed"
    assert abs(ranked[1].hit.parts.total - 0.35) < 1e-9


def test_centrality_adds_within_its_weight_and_values_are_clamped() -> None:
    ranked = rerank([_hit("a", 0.2)], Relevance({}, central={"a": 7.0}), [], CodeWeights(centrality=0.1))
    assert ranked[0].centrality == 1.0
    assert abs(ranked[0].hit.parts.total - 0.3) < 1e-9


def test_ties_keep_the_previous_order() -> None:
    ranked = rerank([_hit("b", 0.3), _hit("a", 0.3)], Relevance({}), [], CodeWeights())
    assert [r.hit.memory_id for r in ranked] == ["b", "a"]


def test_code_weights_parse_from_the_setting_and_refuse_unknown_names() -> None:
    from codememory.recall.codeaware import parse_code_weights

    assert parse_code_weights("named=0.3,graph=0").named == 0.3
    assert parse_code_weights("").named == CodeWeights().named
    with pytest.raises(ValueError, match="bad weight"):
        parse_code_weights("nmaed=0.3")
