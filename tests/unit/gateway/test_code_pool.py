"""Recall with a working set re-ranks a wider pool than it answers: the code parts lift only what they see."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest

from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.settings import GatewaySettings
from codememory.recall.codeaware import CodeAwareHit
from codememory.recall.query import RecallQuery
from codememory.recall.recaller import RecallHit
from codememory.recall.scoring import ScoreParts
from codememory.settings import SettingsError
from codememory.v1 import memory_pb2 as pb

T = TypeVar("T")


class _Core:
    """Answers ``limit`` hits, ``m0`` best first, and notes the limit it was asked for."""

    def __init__(self) -> None:
        self.limits: list[int] = []

    async def recall_then(self, query: RecallQuery, then: Callable[[list[RecallHit]], T]) -> T:
        self.limits.append(query.limit)
        parts = ScoreParts(dense=0.0, lexical=0.0, recency=0.0, importance=0.0, scope=0.0, total=1.0)
        hits = [RecallHit(f"m{i}", {"memory_id": f"m{i}"}, parts) for i in range(query.limit)]
        return then(hits)


class _Context:
    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", "Bearer t"),)

    def time_remaining(self) -> float:
        return 10.0

    async def abort(self, code: object, message: str) -> None:
        raise AssertionError(message)


def _last_first(
    tenant: str, hits: Sequence[RecallHit], working: Sequence[str], query: str
) -> list[CodeAwareHit]:
    return [CodeAwareHit(hit=h, named=1.0) for h in reversed(hits)]  # the code lifts the deepest hit


def _recall(pool: int, limit: int, working: list[str]) -> tuple[list[int], list[str]]:
    core = _Core()
    servicer = MemoryServicer(core, {"t": "acme"}, None, None, _last_first, code_pool=pool)  # type: ignore[arg-type]
    request = pb.RecallRequest(query="edit keeps going", limit=limit, working_set=working)
    answer: Any = asyncio.run(servicer.Recall(request, _Context()))  # type: ignore[arg-type]
    return core.limits, [h.memory.id for h in answer.hits]


def test_a_working_set_recall_re_ranks_the_pool_and_answers_the_limit() -> None:
    asked, ids = _recall(30, 5, ["app/edit.py"])
    assert asked == [30] and ids == ["m29", "m28", "m27", "m26", "m25"]  # lifted from below 15
    assert _recall(30, 20, ["app/edit.py"])[0] == [60]  # three times a larger limit
    assert _recall(0, 5, ["app/edit.py"])[0] == [15]  # 0: three times the limit only
    assert _recall(30, 5, [])[0] == [5]  # no working set: the limit, as before


def test_the_code_pool_setting() -> None:
    assert GatewaySettings.from_env({}).code_pool == 50
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_CODE_POOL": "0"}).code_pool == 0
    with pytest.raises(SettingsError):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_CODE_POOL": "-1"})
