"""Every service's /metrics is where its scrapers look: the pods' prometheus.io annotations and named
port in k8s/base, the port in the config, the network policy that admits Prometheus, the opt-in
ServiceMonitor (checked against the Prometheus Operator's CRD schema), and compose's scrape job."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import kubernetes_validate
import yaml
from kustomize import Obj, render  # type: ignore[import-not-found]

from codememory.metrics.endpoint import DEFAULT_PORT
from codememory.topology import SERVICES
from shared_data import SHARED_DATA  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = SHARED_DATA / "schemas" / "monitoring.coreos.com_servicemonitor_v1.json"


def with_monitoring(tmp_path: Path) -> list[Obj]:
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": [str(ROOT / "k8s" / "base")],
                "components": [str(ROOT / "k8s" / "components" / "monitoring")],
            }
        )
    )
    return list(render(tmp_path))


def named(objects: list[Obj], kind: str, name: str) -> Obj:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def test_every_service_pod_is_annotated_for_scraping_on_its_metrics_port(tmp_path: Path) -> None:
    objects = with_monitoring(tmp_path)
    (config,) = [
        o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "codememory-config"
    ]
    assert config["data"]["CODEMEMORY_METRICS_PORT"] == str(DEFAULT_PORT)
    deployments = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Deployment"}
    assert set(deployments) == {s.name for s in SERVICES}
    for name, deployment in deployments.items():
        template = deployment["spec"]["template"]
        annotations = template["metadata"]["annotations"]
        assert annotations == {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": str(DEFAULT_PORT),
            "prometheus.io/path": "/metrics",
        }, name
        (container,) = template["spec"]["containers"]
        assert {"name": "metrics", "containerPort": DEFAULT_PORT} in container["ports"], name


def test_the_service_monitor_scrapes_every_service_through_a_headless_service(tmp_path: Path) -> None:
    objects = with_monitoring(tmp_path)
    (monitor,) = [o for o in objects if o["kind"] == "ServiceMonitor"]
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    assert not [e.message for e in validator.iter_errors(monitor)]
    (service,) = [
        o for o in objects if o["kind"] == "Service" and o["metadata"]["name"] == "codememory-metrics"
    ]
    kubernetes_validate.validate(service, "1.30", strict=True)
    wanted = monitor["spec"]["selector"]["matchLabels"]
    assert all(service["metadata"]["labels"].get(k) == v for k, v in wanted.items())
    assert monitor["spec"]["endpoints"][0]["port"] == service["spec"]["ports"][0]["name"] == "metrics"
    for deployment in (o for o in objects if o["kind"] == "Deployment"):
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert all(labels.get(k) == v for k, v in service["spec"]["selector"].items())
    (policy,) = [
        o for o in objects if o["kind"] == "NetworkPolicy" and o["metadata"]["name"] == "metrics-ingress"
    ]
    assert policy["spec"]["ingress"][0]["ports"] == [{"protocol": "TCP", "port": DEFAULT_PORT}]


def test_compose_exposes_the_port_and_prometheus_finds_every_service() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    config = yaml.safe_load((ROOT / "deploy" / "observability" / "prometheus.yml").read_text())
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "codememory"]
    (discovery,) = job["dns_sd_configs"]
    assert discovery["port"] == DEFAULT_PORT
    assert sorted(discovery["names"]) == sorted(s.name for s in SERVICES)
    for service in SERVICES:
        assert str(DEFAULT_PORT) in compose["services"][service.name]["expose"], service.name
