"""The benchmarks' turn order (``benchmarks/results.py``): a pair's two sides take turns at running first."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "results.py"
_SPEC = importlib.util.spec_from_file_location("bench_results", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
results = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(results)


def test_every_other_turn_runs_the_sides_in_the_other_order() -> None:
    sides = ("old", "new", "variant")
    orders = [results.in_turn(sides, turn) for turn in range(4)]
    assert orders == [list(sides), list(reversed(sides))] * 2
    firsts = [order[0] for order in orders]
    assert firsts.count("old") == firsts.count("variant") == 2
    assert results.in_turn((), 3) == []
