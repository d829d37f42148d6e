"""docker-compose.yml cannot run here (no Docker engine), so it is validated against the compose spec."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

from shared_data import SHARED_DATA  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = SHARED_DATA / "schemas" / "compose-spec.json"


def test_compose_file_is_valid_and_names_every_service() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    jsonschema.validate(compose, json.loads(SCHEMA.read_text()))
    assert {"nats", "qdrant", "ingest", "embed", "graph", "gateway"} <= set(compose["services"])
    for name in ("ingest", "embed", "graph", "gateway"):
        assert compose["services"][name]["command"][-1] == f"codememory.{name}.main"
        assert (ROOT / "services" / name / "codememory" / name / "main.py").is_file()


def test_k8s_manifests_use_one_name_per_service() -> None:
    for name in ("ingest", "embed", "graph", "gateway"):
        docs = list(yaml.safe_load_all((ROOT / "k8s" / "base" / f"{name}.yaml").read_text()))
        deployment = docs[0]
        assert deployment["metadata"]["name"] == name and deployment["metadata"]["labels"]["app"] == name
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert container["name"] == name and container["command"][-1] == f"codememory.{name}.main"
