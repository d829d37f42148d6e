"""Where ``codememory up`` records its web view and metrics endpoints: beside what runtime.json holds,
owner-only (the web view's address carries the token); each supervised process gets its own port."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from codememory.runtime.home import Runtime, write_runtime
from codememory.runtime.observe import (
    ObserveSettings,
    metrics_env,
    metrics_url,
    read_observers,
    record_observers,
)


def test_observers_are_added_to_runtime_json_owner_only(tmp_path: Path) -> None:
    write_runtime(tmp_path, Runtime(nats_url="nats://x", grpc_address="127.0.0.1:1", pid=7))
    record_observers(tmp_path, "http://127.0.0.1:9/?token=t", ["http://127.0.0.1:8/metrics"])
    data = json.loads((tmp_path / "runtime.json").read_text())
    assert data["grpc_address"] == "127.0.0.1:1" and data["pid"] == 7  # what was there stays
    assert read_observers(tmp_path) == ("http://127.0.0.1:9/?token=t", ["http://127.0.0.1:8/metrics"])
    assert stat.S_IMODE((tmp_path / "runtime.json").stat().st_mode) == 0o600


def test_no_runtime_means_no_observers(tmp_path: Path) -> None:
    assert read_observers(tmp_path) == ("", [])


def test_each_supervised_process_gets_its_own_loopback_port() -> None:
    envs = metrics_env(4)
    ports = {env["CODEMEMORY_METRICS_PORT"] for env in envs}
    assert len(ports) == 4 and all(env["CODEMEMORY_METRICS_HOST"] == "127.0.0.1" for env in envs)
    assert metrics_url(envs[0]) == f"http://127.0.0.1:{envs[0]['CODEMEMORY_METRICS_PORT']}/metrics"


def test_ports_come_from_the_up_settings() -> None:
    settings = ObserveSettings.from_env({"CODEMEMORY_UP_UI_PORT": "8765", "CODEMEMORY_UP_METRICS_PORT": "-1"})
    assert (settings.ui_port, settings.metrics_port) == (8765, -1)
    assert ObserveSettings.from_env({}) == ObserveSettings(ui_port=0, metrics_port=0)
