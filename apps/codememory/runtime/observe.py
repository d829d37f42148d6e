"""What ``codememory up`` serves to be looked at: the web view and the metrics endpoints.

One process (no ``--scale``): one ``/metrics`` for every service in it, and the web view, both on
127.0.0.1. Supervised (``--scale``): each replica serves its own ``/metrics`` on a port chosen here
(``metrics_env``) and the supervisor serves the web view. Where they are goes into runtime.json beside
what ``home.write_runtime`` wrote: ``ui_url`` (with the local token: the file is made owner-only) and
``metrics_urls``, which ``codememory status`` scrapes. Ports: ``CODEMEMORY_UP_UI_PORT`` and
``CODEMEMORY_UP_METRICS_PORT`` (0, the default: any free port).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from codememory.metrics import MetricsEndpoint, MetricsSettings, serve_metrics
from codememory.runtime.home import grpc_root_certificate, local_token, runtime_file
from codememory.settings import env_int
from codememory.web import WebServer, start_web

log = structlog.get_logger(__name__)


@dataclass(frozen=True, kw_only=True)
class ObserveSettings:
    ui_port: int = 0  # below 0: no web view
    metrics_port: int = 0  # below 0: no metrics endpoint

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ObserveSettings:
        return cls(
            ui_port=env_int("up", "ui_port", 0, environ),
            metrics_port=env_int("up", "metrics_port", 0, environ),
        )


@dataclass
class Observers:
    ui_url: str = ""
    metrics_urls: list[str] = field(default_factory=list)
    _web: WebServer | None = None
    _metrics: MetricsEndpoint | None = None

    def close(self) -> None:
        for part in (self._web, self._metrics):
            if part is not None:
                try:
                    part.close()
                except Exception as exc:  # stopping must go on
                    log.warning("observer_close_failed", error=repr(exc))


def start_observers(
    home: Path,
    grpc_address: str,
    *,
    metrics_urls: Sequence[str] | None = None,
    settings: ObserveSettings | None = None,
) -> Observers:
    """Serve the web view (and, without ``metrics_urls`` from replicas, this process's metrics), record
    both in runtime.json and print the web view's address (it holds the token: never logged)."""
    resolved = settings or ObserveSettings.from_env()
    observers = Observers()
    if metrics_urls is None:
        endpoint = serve_metrics(MetricsSettings(port=resolved.metrics_port, host="127.0.0.1"))
        if endpoint is not None:
            observers._metrics = endpoint
            observers.metrics_urls = [endpoint.url]
    else:
        observers.metrics_urls = list(metrics_urls)
    if resolved.ui_port >= 0:
        token = local_token(home)
        try:
            observers._web = start_web(grpc_address, token, resolved.ui_port, grpc_root_certificate(home))
            observers.ui_url = observers._web.url(token)
        except OSError as exc:
            log.warning("web_view_unavailable", port=resolved.ui_port, error=str(exc))
    record_observers(home, observers.ui_url, observers.metrics_urls)
    if observers.ui_url:
        print(f"codememory web view: {observers.ui_url}", flush=True)
    log.info("observers", metrics=observers.metrics_urls, web=bool(observers.ui_url))
    return observers


def record_observers(home: Path, ui_url: str, metrics_urls: Sequence[str]) -> None:
    """Add ``ui_url`` and ``metrics_urls`` to runtime.json, owner-only (the URL carries the token)."""
    path = runtime_file(home)
    data = json.loads(path.read_text())
    data |= {"ui_url": ui_url, "metrics_urls": list(metrics_urls)}
    tmp = path.with_name("runtime.json.observe.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(data))
    os.replace(tmp, path)


def read_observers(home: Path) -> tuple[str, list[str]]:
    """``(ui_url, metrics_urls)`` of the running stack; empty when it records none."""
    try:
        data = json.loads(runtime_file(home).read_text())
    except (OSError, ValueError):
        return "", []
    urls = data.get("metrics_urls")
    return str(data.get("ui_url") or ""), [str(u) for u in urls] if isinstance(urls, list) else []


def metrics_env(count: int) -> list[dict[str, str]]:
    """For ``count`` supervised processes: each its own free loopback port for ``/metrics`` (held
    until all are chosen, so no two are the same)."""
    with ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket())
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
    return [{"CODEMEMORY_METRICS_PORT": str(port), "CODEMEMORY_METRICS_HOST": "127.0.0.1"} for port in ports]


def metrics_url(env: Mapping[str, str]) -> str:
    return f"http://127.0.0.1:{env['CODEMEMORY_METRICS_PORT']}/metrics"
