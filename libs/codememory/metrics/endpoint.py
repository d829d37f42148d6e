"""Serving the metrics: one HTTP endpoint per process, on the port its settings name.

``CODEMEMORY_<SERVICE>_METRICS_PORT`` (or ``CODEMEMORY_METRICS_PORT``) picks the port, 9464 by default
(the port the k8s scrape annotations name); 0 takes any free port (``codememory up`` records the one it
got in runtime.json) and a negative port turns the endpoint off. A port that is taken is logged and the
service runs on without metrics: an observer's problem never stops the observed.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import start_http_server

from codememory.settings import SettingsError, env_int, env_str

log = structlog.get_logger(__name__)

DEFAULT_PORT = 9464


@dataclass(frozen=True, kw_only=True)
class MetricsSettings:
    port: int = DEFAULT_PORT  # 0: any free port; below 0: no endpoint
    host: str = "0.0.0.0"  # a container's scrape target; ``codememory up`` binds loopback

    @classmethod
    def from_env(cls, service: str, environ: Mapping[str, str] | None = None) -> MetricsSettings:
        port = env_int(service, "metrics_port", cls.port, environ)
        if port > 65535:
            raise SettingsError(f"CODEMEMORY_{service.upper()}_METRICS_PORT must be a port, got {port}")
        return cls(port=port, host=env_str(service, "metrics_host", cls.host, environ))

    @property
    def enabled(self) -> bool:
        return self.port >= 0


class MetricsEndpoint:
    """The process's ``/metrics`` HTTP server (prometheus_client's, in a daemon thread)."""

    def __init__(self, server: WSGIServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread
        self.port = int(server.server_port)
        self.host = str(server.server_address[0])

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_metrics(settings: MetricsSettings) -> MetricsEndpoint | None:
    """Start the endpoint; None when it is off or its port cannot be bound (logged)."""
    if not settings.enabled:
        return None
    try:
        server, thread = start_http_server(settings.port, addr=settings.host)
    except OSError as exc:
        log.warning("metrics_unavailable", port=settings.port, error=str(exc))
        return None
    endpoint = MetricsEndpoint(server, thread)
    log.info("metrics_serving", url=endpoint.url)
    return endpoint


def metrics_step(service: str, settings: MetricsSettings | None = None) -> Callable[[], Awaitable[None]]:
    """A startup step for a service's app: serve its metrics once it starts (not at import or factory
    time, so ``faststream docs gen`` binds nothing)."""

    async def start() -> None:
        serve_metrics(settings or MetricsSettings.from_env(service))

    return start
