"""Which files change together: an association model learned from commits in order.

Why it exists: "you are editing ``sessions.py``; ``adapters.py`` and ``test_requests.py`` usually
change with it" is knowledge no single file holds, and agents forget to update the companion
files. History gives it for free; the import graph fills in where history is thin (new files).

Model (documented choices, measured in ``benchmarks/bench_cochange.py``):
- Each learning commit adds weight ``w`` to every changed file and every pair of changed files.
  ``w`` grows by ``2 ** (1 / half_life)`` per observed commit, which is exponential recency decay
  of older evidence without touching old counts (all counts are rescaled now and then to stay
  finite).
- Score of ``g`` for query ``f`` is the association confidence ``pair(f, g) / (count(f) + prior)``;
  pairs seen fewer than ``min_support`` times are ignored.
- Commits touching more than ``max_files`` files (mass renames, reformatting, licence headers) are
  not learned from: their pairs say little and would swamp real ones. Merge commits are not learned
  from either (their first-parent diff repeats the branch's commits). Both still apply renames.
- Renames are followed: a renamed file keeps its identity (and its history) under the new path.
  Deleted files are never predicted.
- ``predict(..., neighbours=...)`` blends graph neighbours (imports, importers, same directory) in:
  each neighbour gets ``graph_weight`` scaled down by its position in the given order, added to its
  history score; with no history at all, the neighbours alone rank the answer.

Defaults (half_life=300 commits, max_files=30, min_support=1, graph_weight=0.02) come from the sweep
in ``benchmarks/RESULTS.md`` (bench_cochange) on flask, requests and httpx: decay beats none by 1-2
points; skipping commits above 30 files is as good as or better than 10, 20, 50 or no limit;
support thresholds above 1 cost 3-10 points; the graph is a tie-breaker and fallback, so its weight
is small (0.2 and above lets same-directory files push out real history and loses).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from codememory.events import CommitRecorded

_RESCALE_AT = 1e100


class CoChange:
    """Co-change model; feed ``observe`` commits oldest first, ask ``predict`` at any point."""

    def __init__(
        self,
        *,
        half_life: float = 300.0,
        max_files: int = 30,
        min_support: int = 1,
        prior: float = 1.0,
        graph_weight: float = 0.02,
    ) -> None:
        if half_life <= 0 or max_files < 2 or min_support < 1 or prior < 0 or graph_weight < 0:
            raise ValueError("half_life > 0, max_files >= 2, min_support >= 1, prior >= 0, graph_weight >= 0")
        self._growth = 2.0 ** (1.0 / half_life)
        self._max_files = max_files
        self._min_support = min_support
        self._prior = prior
        self._graph_weight = graph_weight
        self._weight = 1.0
        self._ids: dict[str, int] = {}
        self._paths: dict[int, str] = {}
        self._count: dict[int, float] = defaultdict(float)
        self._pairs: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self._support: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self._next_id = 0
        self.commits_seen = 0
        self.commits_learned = 0

    def observe(self, commit: CommitRecorded) -> None:
        """Apply the commit's renames and deletions, then learn from it if it qualifies."""
        self.commits_seen += 1
        changed: list[int] = []
        for change in commit.files:
            if change.status == "renamed" and change.old_path:
                self._rename(change.old_path, change.path)
            if change.status == "deleted":
                self._delete(change.path)
                continue
            changed.append(self._id(change.path))
        unique = list(dict.fromkeys(changed))
        self._weight *= self._growth
        if len(commit.parents) > 1 or not unique or len(unique) > self._max_files:
            return
        self.commits_learned += 1
        weight = self._weight
        for file_id in unique:
            self._count[file_id] += weight
        for a in unique:
            row, support = self._pairs[a], self._support[a]
            for b in unique:
                if a != b:
                    row[b] += weight
                    support[b] += 1
        if self._weight > _RESCALE_AT:
            self._rescale()

    def known(self, path: str) -> bool:
        """Whether ``path`` is a live file the model has seen."""
        return path in self._ids

    def history(self, path: str) -> dict[str, float]:
        """History-only scores (confidence in [0, 1]) of every live file that changed with ``path``."""
        file_id = self._ids.get(path)
        if file_id is None:
            return {}
        denominator = self._count[file_id] + self._prior * self._weight
        support = self._support[file_id]
        return {
            self._paths[other]: value / denominator
            for other, value in self._pairs[file_id].items()
            if other in self._paths and support[other] >= self._min_support
        }

    def predict(
        self, path: str, limit: int = 10, *, neighbours: Callable[[str], Iterable[str]] | None = None
    ) -> list[tuple[str, float]]:
        """The ``limit`` files most likely to change with ``path``, best first, with their scores."""
        if limit <= 0:
            return []
        scores = self.history(path)
        if neighbours is not None and self._graph_weight > 0:
            for position, other in enumerate(dict.fromkeys(neighbours(path))):
                if other != path:
                    boost = self._graph_weight / (1.0 + 0.05 * position)
                    scores[other] = scores.get(other, 0.0) + boost
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:limit]

    def _id(self, path: str) -> int:
        file_id = self._ids.get(path)
        if file_id is None:
            self._next_id += 1
            file_id = self._ids[path] = self._next_id
            self._paths[file_id] = path
        return file_id

    def _rename(self, old: str, new: str) -> None:
        file_id = self._ids.pop(old, None)
        if file_id is None or old == new:
            if file_id is not None:
                self._ids[old] = file_id
            return
        replaced = self._ids.get(new)
        if replaced is not None:
            self._paths.pop(replaced, None)
        self._ids[new] = file_id
        self._paths[file_id] = new

    def _delete(self, path: str) -> None:
        file_id = self._ids.pop(path, None)
        if file_id is not None:
            self._paths.pop(file_id, None)

    def _rescale(self) -> None:
        factor = 1.0 / self._weight
        self._weight = 1.0
        for key in self._count:
            self._count[key] *= factor
        for row in self._pairs.values():
            for key in row:
                row[key] *= factor
