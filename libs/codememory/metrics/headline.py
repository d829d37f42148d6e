"""The headline figures of ``codememory status``, computed from scrapes of the metrics endpoints.

Two scrapes a short interval apart give rates; latency quantiles come from the handler histogram's
buckets (linear within a bucket, as Prometheus's ``histogram_quantile`` does) over what changed between
the scrapes, or over everything since start when nothing did. Several endpoints (``up --scale``: one
per process) are summed before anything is computed, so a figure is the whole stack's.
"""

from __future__ import annotations

import math
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

Series = dict[tuple[str, tuple[tuple[str, str], ...]], float]


class ScrapeError(RuntimeError):
    """A metrics endpoint could not be read."""


def scrape(url: str, timeout_s: float = 2.0) -> str:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as reply:
            return str(reply.read().decode("utf-8"))
    except OSError as exc:
        raise ScrapeError(f"cannot read {url}: {exc}") from exc


def parse(texts: Iterable[str]) -> Series:
    """Every sample of every text, same name and labels summed (one series across processes)."""
    series: Series = defaultdict(float)
    for text in texts:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if math.isnan(sample.value):
                    continue
                key = (sample.name, tuple(sorted(sample.labels.items())))
                series[key] += sample.value
    return dict(series)


def total(series: Series, name: str, **match: str) -> float:
    return sum(
        value
        for (found, labels), value in series.items()
        if found == name and all(dict(labels).get(k) == v for k, v in match.items())
    )


def buckets(series: Series, name: str) -> dict[float, float]:
    """Cumulative counts per upper bound of a histogram, every label set summed."""
    counts: dict[float, float] = defaultdict(float)
    for (found, labels), value in series.items():
        if found == f"{name}_bucket":
            counts[float(dict(labels)["le"])] += value
    return dict(sorted(counts.items()))


def quantile(q: float, cumulative: Mapping[float, float]) -> float | None:
    """The ``q`` quantile of a histogram's cumulative buckets; None without observations."""
    bounds = sorted(cumulative)
    if not bounds or cumulative[bounds[-1]] <= 0:
        return None
    rank = q * cumulative[bounds[-1]]
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = cumulative[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower  # beyond the last finite bucket: its bound is the best we know
            width = count - below
            return lower + (bound - lower) * ((rank - below) / width if width else 1.0)
        lower, below = bound, count
    return lower


@dataclass(frozen=True)
class Headline:
    handled_per_s: float
    handled: float
    acked: float
    retried: float
    dead_lettered: float
    grpc_requests: float
    grpc_errors: float
    handler_p50_ms: float | None
    handler_p99_ms: float | None
    consumer_lag: float
    projection_lag: float

    def lines(self) -> list[str]:
        def ms(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f} ms"

        return [
            f"handled: {self.handled_per_s:.1f}/s ({self.handled:.0f} since start; acked {self.acked:.0f})",
            f"errors: {self.retried:.0f} retried, {self.dead_lettered:.0f} dead-lettered, "
            f"{self.grpc_errors:.0f} of {self.grpc_requests:.0f} gRPC requests failed",
            f"handler latency: p50 {ms(self.handler_p50_ms)}, p99 {ms(self.handler_p99_ms)}",
            f"lag: consumers {self.consumer_lag:.0f}, projections {self.projection_lag:.0f}",
        ]


def headline(before: Series, after: Series, seconds: float) -> Headline:
    """Figures from two scrapes ``seconds`` apart (``before`` may be empty: rates are then 0)."""
    handled = total(after, "codememory_messages_handled_total")
    rate = (
        (handled - total(before, "codememory_messages_handled_total")) / seconds
        if before and seconds > 0
        else 0.0
    )
    now, then = buckets(after, "codememory_handler_seconds"), buckets(before, "codememory_handler_seconds")
    recent = {bound: count - then.get(bound, 0.0) for bound, count in now.items()}
    window = recent if recent and max(recent.values()) > 0 else now
    p50, p99 = quantile(0.5, window), quantile(0.99, window)
    grpc_all = total(after, "codememory_grpc_requests_total")
    grpc_ok = total(after, "codememory_grpc_requests_total", code="OK")
    return Headline(
        handled_per_s=rate,
        handled=handled,
        acked=total(after, "codememory_messages_acked_total"),
        retried=total(after, "codememory_messages_retried_total"),
        dead_lettered=total(after, "codememory_messages_dead_lettered_total"),
        grpc_requests=grpc_all,
        grpc_errors=grpc_all - grpc_ok,
        handler_p50_ms=None if p50 is None else p50 * 1000,
        handler_p99_ms=None if p99 is None else p99 * 1000,
        consumer_lag=total(after, "codememory_consumer_lag"),
        projection_lag=total(after, "codememory_projection_lag"),
    )
