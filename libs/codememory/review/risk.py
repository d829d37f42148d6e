"""How risky a change is, as a score with its parts, each 0..1 and each explained.

Parts and weights (their weighted mean is the score; low < 0.33 <= medium < 0.6 <= high):

* centrality (0.25): the highest normalised PageRank of the changed symbols and files (from the
  current centrality snapshot, never computed here): central code breaks more when it breaks.
* fan_in (0.20): direct dependents of the changed code, ``n / (n + 5)``.
* churn (0.15): commits that touched the changed files in the last 90 days, ``c / (c + 5)``.
* fix_ratio (0.20): of the commits that touched the changed files, the share followed within 14 days
  by a fix commit (its subject says fix, bug, regression, revert …) touching the same file: code that
  was often fixed after a change is fragile.
* untested (0.20): the share of changed symbols no test reaches through the dependents (a test that
  only imports the changed file counts half).
"""

from __future__ import annotations

import bisect

from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.reader import GraphReader
from codememory.review.model import Risk, RiskPart
from codememory.review.reading import FIX

__all__ = ["WEIGHTS", "assess"]

WEIGHTS = {"centrality": 0.25, "fan_in": 0.20, "churn": 0.15, "fix_ratio": 0.20, "untested": 0.20}
_DAY = 86400.0
_CHURN_DAYS = 90
_FIX_WITHIN = 14 * _DAY


def _fix_ratio(graph: GraphReader, files: list[int]) -> tuple[float, int, int]:
    followed = total = 0
    for fidx in files:
        commits = [(c.authored_at, bool(FIX.search(c.summary))) for _, c in graph.commits_of(fidx)]
        fixes = sorted(at for at, fix in commits if fix)
        for at, fix in commits:
            if fix:
                continue
            total += 1
            nxt = bisect.bisect_right(fixes, at)  # the first fix after this change
            followed += nxt < len(fixes) and fixes[nxt] <= at + _FIX_WITHIN
    return (followed / total if total else 0.0), followed, total


def assess(
    graph: GraphReader,
    *,
    centrality: CentralitySnapshot,
    changed: list[int],
    files: list[int],
    direct_dependents: int,
    tested: dict[int, float],
    now: float,
) -> Risk:
    """The risk of changing the symbols ``changed`` in ``files`` (node indices), under the graph's lock."""
    keys = [graph.key(i) for i in [*changed, *files]]
    central = max((centrality.normalised_pagerank(k) for k in keys), default=0.0)
    recent = {
        c.sha for f in files for _, c in graph.commits_of(f) if c.authored_at >= now - _CHURN_DAYS * _DAY
    }
    ratio, followed, total = _fix_ratio(graph, files)
    reached = sum(tested.get(i, 0.0) for i in changed)
    untested = 1.0 - reached / len(changed) if changed else 0.0
    parts = (
        RiskPart(
            name="centrality",
            value=round(central, 3),
            weight=WEIGHTS["centrality"],
            detail="highest normalised PageRank of the changed code",
        ),
        RiskPart(
            name="fan_in",
            value=round(direct_dependents / (direct_dependents + 5), 3),
            weight=WEIGHTS["fan_in"],
            detail=f"{direct_dependents} direct dependents",
        ),
        RiskPart(
            name="churn",
            value=round(len(recent) / (len(recent) + 5), 3),
            weight=WEIGHTS["churn"],
            detail=f"{len(recent)} commits touched these files in {_CHURN_DAYS} days",
        ),
        RiskPart(
            name="fix_ratio",
            value=round(ratio, 3),
            weight=WEIGHTS["fix_ratio"],
            detail=f"{followed} of {total} changes to these files were followed by a fix within 14 days",
        ),
        RiskPart(
            name="untested",
            value=round(untested, 3),
            weight=WEIGHTS["untested"],
            detail=f"tests reach {reached:g} of {len(changed)} changed symbols",
        ),
    )
    score = round(sum(p.value * p.weight for p in parts) / sum(WEIGHTS.values()), 3)
    level = "low" if score < 0.33 else "medium" if score < 0.6 else "high"
    return Risk(score=score, level=level, parts=parts)
