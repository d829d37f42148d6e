"""A recorded commit reviewed against the code graph: what it changed, who depends on it, its risk.

The risk is a weighted sum of four parts in [0, 1], each recorded with it so a reader can see why:
``fan_in`` (direct dependents of what changed, log-scaled, 50 or more is 1), ``reach`` (transitive
dependents, 500 or more is 1), ``churn`` (how often the changed files changed before, 20 commits or
more is 1) and ``untested`` (1 when no dependent lives in a test file). Pure: the graph is read
through ``codememory.codegraph.queries`` (each takes the graph's lock itself).
"""

from __future__ import annotations

import math
import re

from codememory.codegraph import CodeGraph
from codememory.codegraph.errors import GraphError
from codememory.codegraph.queries import dependents, file_churn
from codememory.events import CommitRecorded, CommitReviewed, SymbolChange, deterministic_id

__all__ = ["WEIGHTS", "review_commit", "review_id"]

WEIGHTS = {"fan_in": 0.35, "reach": 0.25, "churn": 0.2, "untested": 0.2}
_TEST = re.compile(r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$")
_REACH_LIMIT = 500


def review_id(tenant: str, repo: str, sha: str) -> str:
    return deterministic_id(tenant, "commit.reviewed", repo, sha)


def _scaled(value: int, full: int) -> float:
    return min(1.0, math.log1p(value) / math.log1p(full))


def review_commit(graph: CodeGraph, tenant: str, event: CommitRecorded, graph_seq: int) -> CommitReviewed:
    changed: list[SymbolChange] = []
    files: list[str] = []
    direct_total, seen, tested, churn = 0, set[str](), False, 0
    for change in event.files:
        if change.status == "deleted":
            continue
        files.append(change.path)
        churn = max(churn, file_churn(graph, event.repo, change.path, besides=event.sha))
        for name in change.symbols or (change.path,):
            try:
                near = dependents(graph, name)
                far = dependents(graph, name, transitive=True, limit=_REACH_LIMIT)
            except GraphError:  # not indexed (yet): nothing known depends on it
                near, far = (), ()
            direct_total += len(near)
            seen.update(f"{d.node.kind}:{d.node.name}" for d in far)
            tested = tested or any(_TEST.search(d.node.name.replace(".", "/")) for d in far)
            if change.symbols:
                changed.append(
                    SymbolChange(
                        path=change.path,
                        qualname=name,
                        direct_dependents=len(near),
                        transitive_dependents=len(far),
                    )
                )
    parts = {
        "fan_in": round(_scaled(direct_total, 50), 4),
        "reach": round(_scaled(len(seen), _REACH_LIMIT), 4),
        "churn": round(min(1.0, churn / 20), 4),
        "untested": 0.0 if tested or not files else 1.0,
    }
    return CommitReviewed(
        review_id=review_id(tenant, event.repo, event.sha),
        repo=event.repo,
        sha=event.sha,
        changed=tuple(changed),
        files=tuple(files),
        dependents=len(seen),
        risk=round(sum(WEIGHTS[k] * v for k, v in parts.items()), 4),
        risk_parts=parts,
        graph_seq=graph_seq,
    )
