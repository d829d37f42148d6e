"""docker-compose.yml and its overlays cannot run here (no Docker engine), so each combination a user
can start is merged as ``docker compose -f ... -f ...`` merges it and validated against the compose
specification, and the properties that matter are checked: the same service names as services/ and
k8s/, one NATS server that fsyncs every write, the files the services mount, pinned images.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from codememory.topology import SERVICES as TOPOLOGY
from shared_data import SHARED_DATA  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = SHARED_DATA / "schemas" / "compose-spec.json"
SERVICES = sorted(s.name for s in TOPOLOGY)
OVERLAYS = ["docker-compose.scale.yml", "docker-compose.observability.yml", "docker-compose.tls.yml"]
COMBINATIONS = [[], *[[o] for o in OVERLAYS], OVERLAYS]
# sequences compose replaces rather than merges; no overlay here extends any other sequence
REPLACED = {"command", "entrypoint", "test"}

Compose = dict[str, Any]


def merge(base: Any, override: Any, key: str = "") -> Any:
    """Compose's merge for what these files use: mappings merge key by key, commands are replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for k, v in override.items():
            out[k] = merge(out[k], v, k) if k in out else v
        return out
    if isinstance(base, list) and key not in REPLACED:
        raise AssertionError(f"an overlay extends the sequence {key}: teach merge() compose's rule for it")
    return override


def load(files: list[str]) -> Compose:
    merged: Compose = {}
    for name in ["docker-compose.yml", *files]:
        merged = merge(merged, yaml.safe_load((ROOT / name).read_text()))
    return merged


def codememory_services(compose: Compose) -> dict[str, Compose]:
    return {
        name: service
        for name, service in compose["services"].items()
        if service.get("command", [""])[-1].startswith("codememory.")
    }


combinations = pytest.mark.parametrize("files", COMBINATIONS, ids=lambda f: "+".join(f) or "base")


@combinations
def test_each_combination_matches_the_compose_specification(files: list[str]) -> None:
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    compose = load(files)
    assert not [f"{e.json_path}: {e.message}" for e in validator.iter_errors(compose)]
    for service in compose["services"].values():
        assert service["restart"] == "unless-stopped"
        image = service["image"]
        assert ":" in image and not image.endswith(":latest"), image
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./") and source != "./":
                assert (ROOT / source).is_file(), source


def test_one_name_per_service() -> None:
    compose = load([])
    assert set(compose["services"]) == {"nats", "qdrant", *SERVICES}
    services = codememory_services(compose)
    assert sorted(services) == SERVICES
    for name, service in services.items():
        assert service["command"] == ["python", "-m", f"codememory.{name}.main"]
        assert [s.module for s in TOPOLOGY if s.name == name] == [f"codememory.{name}.main"]
        assert (ROOT / "services" / name / "codememory" / name / "main.py").is_file()
        assert service["image"] == "codememory:${CODEMEMORY_VERSION:-latest}"
        assert service["env_file"] == [".env.example", {"path": ".env", "required": False}]
        assert service["environment"]["CODEMEMORY_NATS_URL"] == "nats://nats:4222"
        # one NATS server: a stream cannot have more replicas than there are servers
        assert service["environment"]["CODEMEMORY_STREAM_REPLICAS"] == "1"
        assert service["depends_on"]["nats"] == {"condition": "service_healthy"}
        assert service["stop_grace_period"] == "30s"
        assert service["read_only"] is True and service["tmpfs"] == ["/tmp"]
        assert service["cap_drop"] == ["ALL"]


def test_nats_is_one_jetstream_server_that_fsyncs_every_write() -> None:
    nats = load([])["services"]["nats"]
    assert nats["image"] == "nats:2.12-alpine"
    mounts = dict(reversed(v.split(":")[:2]) for v in nats["volumes"])
    assert nats["command"] == ["--config", "/etc/nats/codememory.conf"]
    conf = (ROOT / mounts["/etc/nats/codememory.conf"]).read_text()
    settings = "\n".join(line.split("#")[0] for line in conf.splitlines())
    assert re.search(r"^\s*sync_interval: always$", settings, re.M)
    assert re.search(r"^\s*store_dir: /data$", settings, re.M) and mounts["/data"] == "nats-data"
    assert re.search(r"^http_port: 8222$", settings, re.M)
    assert re.search(r"^max_pending: 128MB$", settings, re.M)  # as the embedded server and k8s have it
    assert "8222/healthz" in " ".join(nats["healthcheck"]["test"])


def test_nats_accepts_the_configuration_compose_mounts(tmp_path: Path) -> None:
    """``nats-server -t`` on the mounted files, passwords set as compose would set them."""
    from codememory.runtime.natsd import find_nats_server

    deploy = ROOT / "deploy" / "nats"
    for name in ("nats.conf", "auth.conf"):
        (tmp_path / name).write_text((deploy / name).read_text())
    names = set(re.findall(r"\$(CM_NATS_PASSWORD_\w+)", (deploy / "auth.conf").read_text()))
    assert names, "auth.conf takes its passwords from the environment"
    env = {"PATH": os.environ.get("PATH", ""), **{n: "not-a-real-password" for n in names}}
    checked = subprocess.run(
        [find_nats_server(), "-t", "-c", str(tmp_path / "nats.conf")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout


def test_the_gateway_listens_on_50051_with_the_qdrant_server() -> None:
    compose = load([])
    gateway = compose["services"]["gateway"]
    assert gateway["ports"] == ["50051:50051"]
    assert gateway["environment"]["CODEMEMORY_GATEWAY_LISTEN"] == "0.0.0.0:50051"
    assert gateway["environment"]["CODEMEMORY_GATEWAY_QDRANT_URL"] == "http://qdrant:6333"
    assert gateway["depends_on"]["qdrant"] == {"condition": "service_started"}
    assert compose["services"]["qdrant"]["image"] == "qdrant/qdrant:v1.15.0"


def test_the_scale_overlay_adds_consumer_replicas_only() -> None:
    overlay = yaml.safe_load((ROOT / "docker-compose.scale.yml").read_text())
    replicas = {name: service["deploy"]["replicas"] for name, service in overlay["services"].items()}
    assert replicas == {"ingest": 2, "embed": 2}
    compose = load(["docker-compose.scale.yml"])
    # the gateway publishes a host port: a second replica could not bind it
    assert "deploy" not in compose["services"]["gateway"]


def test_the_observability_overlay_scrapes_nats_through_the_exporter() -> None:
    services = load(["docker-compose.observability.yml"])["services"]
    exporter, prometheus = services["nats-exporter"], services["prometheus"]
    assert exporter["command"][-1] == "http://nats:8222" and "-jsz=all" in exporter["command"]
    port = exporter["command"][exporter["command"].index("-port") + 1]
    mounts = dict(reversed(v.split(":")[:2]) for v in prometheus["volumes"])
    config = yaml.safe_load((ROOT / mounts["/etc/prometheus/prometheus.yml"]).read_text())
    static = [c for job in config["scrape_configs"] for c in job.get("static_configs", [])]
    targets = [t for c in static for t in c["targets"]]
    assert targets == [f"nats-exporter:{port}"]


def test_env_example_holds_settings_only() -> None:
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            assert key.startswith("CODEMEMORY_") and value, line
