"""Where one recall at a million memories spends its time: each step of ``Recaller`` and each engine call.

``bench_million.py --data-dir DIR --stages [--queries N]`` opens the kept shard in this process as the
gateway opens it (query model, payload cache, ``DenseSearch``), asks ``N`` questions through a
``Recaller`` and times:

- each recall step, inclusive (the first candidates, relevance feedback, link expansion, the current
  statement first, one per fact and topic crowding), by timing the recaller's own methods;
- each call to the index and to the query model, by the step it ran in (``TimedIndex``, a proxy that
  forwards everything and times what it forwards).

No gRPC and no event loop: what is left of the gRPC figure is the servicer and the transport. The
steps' Python share is a step's time minus its calls'. Medians over the questions, so the parts do not
add up to the total exactly. Replaces the throwaway per-stage harnesses earlier figures came from.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from million_serving import open_memory
from results import median

TENANT = "bench"  # the tenant ``million_serving.serve`` maps the bench's token to
STEPS = ("_candidates_for", "_with_feedback", "_expand", "_current_first", "_one_per_fact")
ENGINE_CALLS = ("search_both", "search_dense", "search_sparse", "scroll", "get", "dense_vectors")


class _Clock:
    """Durations by (step, what), of the question being asked. One question at a time, so the step is
    the process's: calls a step makes from recall's thread pool (link expansion) count in it too, and
    two such calls that overlap both count whole."""

    def __init__(self) -> None:
        self.took: dict[tuple[str, str], float] = defaultdict(float)
        self.step = "recall"
        self._lock = threading.Lock()

    def timed(self, step: str | None, what: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            outer = self.step
            if step is not None:
                self.step = step
            t0 = time.perf_counter()
            try:
                result = call(*args, **kwargs)
                if what == "scroll":  # a generator: the engine works while it is drained
                    result = list(result)
                return result
            finally:
                with self._lock:
                    self.took[(step or outer, what)] += (time.perf_counter() - t0) * 1000
                if step is not None:
                    self.step = outer

        return run


class TimedIndex:
    """The index, its engine calls timed by the clock; everything else forwarded as it is."""

    def __init__(self, inner: Any, clock: _Clock) -> None:
        self._inner, self._clock = inner, clock

    def search_both(self, *args: Any) -> Any:  # declared: ``search_pair`` checks for it by protocol
        return self._clock.timed(None, "search_both", self._inner.search_both)(*args)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name in ENGINE_CALLS:
            return self._clock.timed(None, name, attribute)
        return attribute


class _TimedEmbedder:
    def __init__(self, inner: Any, clock: _Clock) -> None:
        self._inner, self._clock = inner, clock
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed(self, texts: list[str]) -> Any:
        return self._clock.timed(None, "embed", self._inner.embed)(texts)


def stages(data_dir: Path, asked: list[str]) -> list[tuple[str, str, float]]:
    """Per (step, call) the median milliseconds over ``asked`` (each question asked once, after a warm-up
    of 20): ``(step, "total")`` is a step inclusive, ``("recall", "total")`` a whole recall."""
    from codememory.gateway.querymodels import configured_query_model
    from codememory.gateway.settings import GatewaySettings
    from codememory.lexical import SparseEncoder
    from codememory.recall.query import RecallQuery
    from codememory.recall.recaller import Recaller

    settings = GatewaySettings.from_env()
    clock = _Clock()
    embedder = _TimedEmbedder(configured_query_model(settings), clock)
    memory = open_memory(data_dir, settings, embedder.model_id)
    timed = TimedIndex(memory.index, clock)
    recaller = Recaller(timed, embedder, SparseEncoder(), settings.weights)  # type: ignore[arg-type]
    for step in STEPS:
        setattr(recaller, step, clock.timed(step, "total", getattr(recaller, step)))
    ask = clock.timed("recall", "total", recaller.recall)
    for text in asked[:20]:
        ask(RecallQuery(tenant=TENANT, text=text, limit=10))
    per_question: dict[tuple[str, str], list[float]] = defaultdict(list)
    for text in asked:
        clock.took.clear()
        ask(RecallQuery(tenant=TENANT, text=text, limit=10))
        for key, ms in clock.took.items():
            per_question[key].append(ms)
    memory.index.close()
    rows = []
    for (step, what), values in per_question.items():
        values += [0.0] * (len(asked) - len(values))  # a step that did not run in a question took 0
        rows.append((step, what, median(values)))
    order = {name: i for i, name in enumerate(("recall", *STEPS))}
    return sorted(rows, key=lambda r: (order.get(r[0], 99), r[1] != "total", r[1]))


def stages_table(rows: list[tuple[str, str, float]]) -> str:
    lines = ["| step | call | median ms |", "|---|---|---|"]
    lines += [f"| {step.strip('_')} | {what} | {ms:.2f} |" for step, what, ms in rows]
    return "\n".join(lines)
