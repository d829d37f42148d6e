"""The endpoint: served on the port the settings name (0: any free), scraped over HTTP; a taken port
or a port turned off leaves the process running without one."""

from __future__ import annotations

import socket

import pytest

from codememory.metrics import MetricsSettings, serve_metrics
from codememory.metrics.families import MESSAGES_HANDLED
from codememory.metrics.headline import scrape
from codememory.settings import SettingsError


def test_settings_come_from_the_service_then_the_shared_variable() -> None:
    env = {"CODEMEMORY_METRICS_PORT": "9999", "CODEMEMORY_EMBED_METRICS_PORT": "9101"}
    assert MetricsSettings.from_env("embed", env).port == 9101
    assert MetricsSettings.from_env("ingest", env).port == 9999
    assert MetricsSettings.from_env("ingest", {}).port == 9464
    assert not MetricsSettings.from_env("ingest", {"CODEMEMORY_METRICS_PORT": "-1"}).enabled
    with pytest.raises(SettingsError):
        MetricsSettings.from_env("ingest", {"CODEMEMORY_METRICS_PORT": "70000"})
    with pytest.raises(SettingsError):
        MetricsSettings.from_env("ingest", {"CODEMEMORY_METRICS_PORT": "nine"})


def test_the_endpoint_serves_the_families() -> None:
    MESSAGES_HANDLED.labels(service="endpoint-test", consumer="c").inc(3)
    endpoint = serve_metrics(MetricsSettings(port=0, host="127.0.0.1"))
    assert endpoint is not None
    try:
        text = scrape(endpoint.url)
    finally:
        endpoint.close()
    assert 'codememory_messages_handled_total{consumer="c",service="endpoint-test"} 3.0' in text
    assert "# TYPE codememory_handler_seconds histogram" in text


def test_a_taken_port_or_a_disabled_endpoint_gives_none() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert serve_metrics(MetricsSettings(port=port, host="127.0.0.1")) is None
    assert serve_metrics(MetricsSettings(port=-1)) is None
