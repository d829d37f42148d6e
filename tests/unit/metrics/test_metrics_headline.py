"""The figures of ``codememory status``: sums across endpoints, rates between scrapes, quantiles from
histogram buckets; and the projection gauges read at scrape time."""

from __future__ import annotations

import gc

import pytest
from prometheus_client import REGISTRY

from codememory.metrics import track_projections
from codememory.metrics.headline import headline, parse, quantile


def exposition(handled: float, fast: float, slow: float, lag: float, errors: float = 0) -> str:
    return f"""# TYPE codememory_messages_handled counter
codememory_messages_handled_total{{service="ingest",consumer="ingest"}} {handled}
# TYPE codememory_handler_seconds histogram
codememory_handler_seconds_bucket{{service="ingest",consumer="ingest",le="0.01"}} {fast}
codememory_handler_seconds_bucket{{service="ingest",consumer="ingest",le="0.1"}} {fast + slow}
codememory_handler_seconds_bucket{{service="ingest",consumer="ingest",le="+Inf"}} {fast + slow}
codememory_handler_seconds_count{{service="ingest",consumer="ingest"}} {fast + slow}
codememory_handler_seconds_sum{{service="ingest",consumer="ingest"}} 1.0
# TYPE codememory_consumer_lag gauge
codememory_consumer_lag{{service="ingest",consumer="ingest"}} {lag}
# TYPE codememory_grpc_requests counter
codememory_grpc_requests_total{{method="/x/Recall",code="OK"}} 10
codememory_grpc_requests_total{{method="/x/Recall",code="INTERNAL"}} {errors}
"""


def test_quantiles_interpolate_within_a_bucket() -> None:
    cumulative = {0.01: 50.0, 0.1: 100.0, float("inf"): 100.0}
    assert quantile(0.5, cumulative) == pytest.approx(0.01)
    assert quantile(0.75, cumulative) == pytest.approx(0.055)
    assert quantile(0.99, cumulative) == pytest.approx(0.0982)
    assert quantile(0.5, {0.1: 0.0, float("inf"): 0.0}) is None
    assert quantile(0.99, {0.1: 1.0, float("inf"): 5.0}) == pytest.approx(0.1)  # past the last bound


def test_two_processes_are_summed_and_rates_come_from_two_scrapes() -> None:
    before = parse([exposition(100, 40, 0, 5), exposition(50, 10, 0, 1)])
    after = parse([exposition(130, 40, 0, 2), exposition(70, 10, 40, 0, errors=3)])
    figures = headline(before, after, seconds=2.0)
    assert figures.handled == 200 and figures.handled_per_s == pytest.approx(25.0)
    assert figures.consumer_lag == 2
    assert figures.grpc_requests == 23 and figures.grpc_errors == 3
    # only what changed between the scrapes: 40 slow batches, so both quantiles are in the slow bucket
    assert figures.handler_p50_ms is not None and 10 < figures.handler_p50_ms <= 100
    assert figures.handler_p99_ms is not None and figures.handler_p99_ms > figures.handler_p50_ms
    assert any("p50" in line for line in figures.lines())


def test_one_scrape_gives_no_rate_but_every_total() -> None:
    figures = headline({}, parse([exposition(7, 7, 0, 0)]), seconds=0.0)
    assert figures.handled == 7 and figures.handled_per_s == 0.0
    assert figures.handler_p50_ms is not None and figures.handler_p50_ms <= 10


class Projection:
    def __init__(self, seq: int) -> None:
        self.seq = seq


class Owner:
    def __init__(self) -> None:
        self.memory, self.code, self.log_last = Projection(90), Projection(100), 100


def test_projection_gauges_read_their_owner_when_scraped() -> None:
    owner = Owner()
    track_projections(owner, lambda o: [("memory", o.memory), ("code", o.code)], lambda o: o.log_last)  # type: ignore[attr-defined]

    def gauge(name: str, projection: str) -> float | None:
        return REGISTRY.get_sample_value(name, {"projection": projection})

    assert gauge("codememory_projection_sequence", "memory") == 90
    assert gauge("codememory_projection_lag", "memory") == 10
    owner.memory.seq = 100
    assert gauge("codememory_projection_lag", "memory") == 0
    assert REGISTRY.get_sample_value("codememory_log_last_sequence") == 100
    del owner
    gc.collect()
    assert gauge("codememory_projection_lag", "code") == 0  # a gone gateway is not kept alive by its gauges


class Model:
    model_id, dim = "m", 2

    def embed(self, texts: object) -> list[tuple[float, ...]]:
        return [(1.0, 0.0) for _ in texts]  # type: ignore[attr-defined]


def test_every_embedding_batch_is_timed_and_its_texts_counted() -> None:
    from codememory.metrics import TimedEmbedder

    labels = {"model": "m", "caller": "unit"}
    before = REGISTRY.get_sample_value("codememory_embedding_batch_seconds_count", labels) or 0.0
    timed = TimedEmbedder(Model(), "unit")
    assert timed.embed(["a", "b", "c"]) == [(1.0, 0.0)] * 3 and timed.dim == 2 and timed.model_id == "m"
    assert REGISTRY.get_sample_value("codememory_embedding_batch_seconds_count", labels) == before + 1
    assert (REGISTRY.get_sample_value("codememory_embedded_texts_total", labels) or 0) >= 3
