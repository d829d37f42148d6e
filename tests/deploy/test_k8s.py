"""k8s/ cannot be applied here (no cluster, no kubectl, no kustomize), so every kustomization is rendered
by ``kustomize.py`` and what a cluster would be given is checked: each core object against the
Kubernetes API schema, each ScaledObject against KEDA's, and the properties that keep the deployment
right (one name per service, gRPC probes, the consumers KEDA watches, disruption budgets, locked-down
pods, who may talk to whom, the NATS cluster's routes).
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
from kustomize import Obj, render  # type: ignore[import-not-found]

from codememory.topology import SERVICES as TOPOLOGY
from shared_data import SHARED_DATA  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
TARGETS = {"base": K8S / "base", "dev": K8S / "overlays/dev", "production": K8S / "overlays/production"}
NAMESPACES = {"base": None, "dev": "codememory-dev", "production": "codememory"}
FOLDERS = sorted(p.name for p in (ROOT / "services").iterdir() if (p / "codememory" / p.name).is_dir())
SERVICES = sorted(s.name for s in TOPOLOGY)
# the durable consumers each service's replicas share: KEDA scales the service on their lag
CONSUMERS = {s.name: {(c.stream, c.durable) for c in s.consumers} for s in TOPOLOGY if s.consumers}
# services nothing scales out: no durable consumer whose lag KEDA could follow, no API whose load the HPA
# could spread; they follow LOG on their own and a second replica would repeat their work (consolidate)
SINGLETONS = {s.name for s in TOPOLOGY if not s.consumers and not s.serves_grpc}
KUBERNETES_VERSION = "1.30"
KEDA_SCHEMA = SHARED_DATA / "schemas" / "keda.sh_scaledobject_v1alpha1.json"
RESTRICTED_VOLUMES = {"emptyDir", "configMap", "secret", "persistentVolumeClaim", "projected", "downwardAPI"}


@functools.cache
def _rendered(target: str) -> tuple[Obj, ...]:
    return tuple(render(TARGETS[target]))


def objects(target: str, kind: str | None = None) -> list[Obj]:
    return [o for o in _rendered(target) if kind is None or o["kind"] == kind]


def one(target: str, kind: str, name: str) -> Obj:
    (found,) = [o for o in objects(target, kind) if o["metadata"]["name"] == name]
    return found


def pod(workload: Obj) -> Obj:
    spec: Obj = workload["spec"]["template"]["spec"]
    return spec


def env(container: Obj) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def config(target: str) -> dict[str, str]:
    data: dict[str, str] = one(target, "ConfigMap", "codememory-config")["data"]
    return data


def selects(selector: Obj, labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


everywhere = pytest.mark.parametrize("target", list(TARGETS))


def test_each_kustomization_renders_what_it_should() -> None:
    kinds = {t: {o["kind"] for o in objects(t)} for t in TARGETS}
    assert not kinds["base"] & {"ScaledObject", "HorizontalPodAutoscaler", "Secret", "Namespace"}
    assert not kinds["dev"] & {"ScaledObject", "HorizontalPodAutoscaler"}
    assert {"ScaledObject", "HorizontalPodAutoscaler"} <= kinds["production"]
    for target, namespace in NAMESPACES.items():
        for obj in objects(target):
            if obj["kind"] == "Namespace":
                assert obj["metadata"]["name"] == namespace
            else:
                assert obj["metadata"].get("namespace") == namespace, obj["metadata"]["name"]
            assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "codememory"
    assert one("dev", "StatefulSet", "nats")["spec"]["replicas"] == 1
    for target, cpu in (("base", "1"), ("production", "2")):  # production's patches raise the limits
        (embed,) = pod(one(target, "Deployment", "embed"))["containers"]
        assert embed["resources"]["limits"]["cpu"] == cpu and embed["command"][-1] == "codememory.embed.main"
    assert config("dev")["CODEMEMORY_STREAM_REPLICAS"] == "1"
    # production runs the version this checkout builds
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for name in SERVICES:
        (container,) = pod(one("production", "Deployment", name))["containers"]
        assert container["image"] == f"codememory:{version}"


@everywhere
def test_core_objects_match_the_kubernetes_api(target: str) -> None:
    for obj in objects(target):
        if obj["kind"] != "ScaledObject":
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_scaled_objects_match_the_keda_crd() -> None:
    validator = jsonschema.Draft7Validator(json.loads(KEDA_SCHEMA.read_text()))
    for obj in objects("production", "ScaledObject"):
        assert not [e.message for e in validator.iter_errors(obj)], obj["metadata"]["name"]


@everywhere
def test_one_name_per_service(target: str) -> None:
    assert SERVICES == FOLDERS
    assert sorted(d["metadata"]["name"] for d in objects(target, "Deployment")) == SERVICES
    for name in SERVICES:
        deployment = one(target, "Deployment", name)
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"] == {"app": name}
        assert labels["app"] == labels["app.kubernetes.io/name"] == name
        assert deployment["metadata"]["labels"]["app"] == name
        (container,) = pod(deployment)["containers"]
        assert container["name"] == name
        assert container["command"] == ["python", "-m", f"codememory.{name}.main"]
        assert [s.module for s in TOPOLOGY if s.name == name] == [f"codememory.{name}.main"]
        assert (ROOT / "services" / name / "codememory" / name / "main.py").is_file()


@everywhere
def test_the_gateway_serves_grpc_with_native_probes(target: str) -> None:
    (container,) = pod(one(target, "Deployment", "gateway"))["containers"]
    tls = target == "production"  # components/tls: the API over TLS, the probes on a plain health port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {"port": 8086 if tls else 50051}
    assert container["ports"][0] == {"name": "grpc", "containerPort": 50051}
    service = one(target, "Service", "gateway")
    assert service["spec"]["ports"][0]["port"] == 50051 and service["spec"]["ports"][0]["name"] == "grpc"
    settings = env(container)
    assert settings["CODEMEMORY_GATEWAY_LISTEN"] == "0.0.0.0:50051"
    assert settings["CODEMEMORY_GATEWAY_QDRANT_URL"] == "http://qdrant:6333"
    assert settings["CODEMEMORY_GATEWAY_TOKENS"] == {
        "secretKeyRef": {"name": "codememory-tokens", "key": "tokens"}
    }
    qdrant_ports = {p["port"] for p in one(target, "Service", "qdrant")["spec"]["ports"]}
    assert {6333, 6334} == qdrant_ports
    if not tls:
        assert "CODEMEMORY_GATEWAY_TLS_CERT" not in settings
        assert service["spec"]["ports"][0]["appProtocol"] == "kubernetes.io/h2c"
        return
    assert {"name": "health", "containerPort": 8086} in container["ports"]
    assert settings["CODEMEMORY_GATEWAY_HEALTH_LISTEN"] == "0.0.0.0:8086"
    assert service["spec"]["ports"][0]["appProtocol"] == "https"
    assert [p["port"] for p in service["spec"]["ports"]] == [50051]  # the health port is not a service
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert settings["CODEMEMORY_GATEWAY_TLS_CERT"] == mounts["grpc-tls"] + "/tls.crt"
    assert settings["CODEMEMORY_GATEWAY_TLS_KEY"] == mounts["grpc-tls"] + "/tls.key"
    volumes = {v["name"]: v for v in pod(one(target, "Deployment", "gateway"))["volumes"]}
    assert volumes["grpc-tls"]["secret"]["secretName"] == "codememory-grpc-tls"  # by reference only


def test_scaled_objects_follow_each_consumer_on_its_stream() -> None:
    scaled = {o["metadata"]["name"]: o for o in objects("production", "ScaledObject")}
    assert set(scaled) == set(CONSUMERS)
    for name, obj in scaled.items():
        spec = obj["spec"]
        assert spec["scaleTargetRef"]["name"] == name
        one("production", "Deployment", name)  # the target exists
        # never to zero: one warm replica (the model loaded; the redrive consumer served)
        assert spec["minReplicaCount"] >= 1 and spec["maxReplicaCount"] > spec["minReplicaCount"]
        watched = set()
        for trigger in spec["triggers"]:
            meta = trigger["metadata"]
            assert trigger["type"] == "nats-jetstream"
            assert meta["account"] == "$G" and meta["useHttps"] == "false"
            assert int(meta["lagThreshold"]) > 0
            # KEDA asks from its own namespace, then <server_name>.<host> for a consumer's leader
            host = f"nats-headless.{NAMESPACES['production']}.svc.cluster.local:8222"
            assert meta["natsServerMonitoringEndpoint"] == host
            watched.add((meta["stream"], meta["consumer"]))
        # a service's durables bear its name: its own, or <name>-<what it reads> beside it
        assert watched == CONSUMERS[name] and all(
            durable == name or durable.startswith(f"{name}-") for _, durable in watched
        )
    (hpa,) = objects("production", "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == "gateway"
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 6)
    assert hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70
    # every other service is scaled by one of them
    assert set(scaled) | {hpa["spec"]["scaleTargetRef"]["name"]} == set(SERVICES) - SINGLETONS


@everywhere
def test_every_workload_is_budgeted_bounded_and_locked_down(target: str) -> None:
    budgets = objects(target, "PodDisruptionBudget")
    for workload in objects(target, "Deployment") + objects(target, "StatefulSet"):
        name, spec = workload["metadata"]["name"], pod(workload)
        labels = workload["spec"]["template"]["metadata"]["labels"]
        (budget,) = [b for b in budgets if selects(b["spec"]["selector"], labels)]
        if workload["kind"] == "Deployment":
            if name in SINGLETONS:
                # one replica and nothing adds a second: minAvailable 1 would block every drain of its node
                assert workload["spec"]["replicas"] == 1, name
                assert budget["spec"]["maxUnavailable"] == 1 and "minAvailable" not in budget["spec"], name
            else:
                assert budget["spec"]["minAvailable"] == 1, name
            assert spec["terminationGracePeriodSeconds"] == 30
            assert {"name": "tmp", "emptyDir": {}} in spec["volumes"]
        assert spec["automountServiceAccountToken"] is False
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for volume in spec.get("volumes", []):
            assert set(volume) - {"name"} <= RESTRICTED_VOLUMES, (name, volume)
        for container in spec["containers"]:
            resources = container["resources"]
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources[bound]), (name, bound)
            image = container["image"]
            pinned = ":" in image and not image.endswith(":latest")
            assert pinned or (image == "codememory:latest" and target != "production"), image
            context = {**spec["securityContext"], **container["securityContext"]}
            assert context["runAsNonRoot"] is True and context["runAsUser"] > 0
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"] == {"drop": ["ALL"]}
            if workload["kind"] == "Deployment":
                assert container["envFrom"] == [{"configMapRef": {"name": "codememory-config"}}]
                assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"]


@everywhere
def test_secrets_are_referenced_not_written(target: str) -> None:
    secrets = objects(target, "Secret")
    if target == "dev":
        assert [s["metadata"]["name"] for s in secrets] == ["codememory-tokens", "codememory-nats-users"]
        assert "EXAMPLE ONLY" in (TARGETS["dev"] / "kustomization.yaml").read_text()
    else:
        assert secrets == []


def _admits_outsiders(rule: Obj) -> list[str]:
    """Where a rule's sources lie outside the namespace: 'anywhere', or a namespace's name."""
    peers = rule.get("from") or [{}]
    outside = []
    for peer in peers:
        if "ipBlock" in peer or not peer:
            outside.append("anywhere")
        elif "namespaceSelector" in peer:
            names = peer["namespaceSelector"].get("matchLabels", {})
            outside.append(names.get("kubernetes.io/metadata.name", "any namespace"))
    return outside


@everywhere
def test_network_policies_admit_only_what_the_flow_needs(target: str) -> None:
    policies = {p["metadata"]["name"]: p["spec"] for p in objects(target, "NetworkPolicy")}
    assert policies["default-deny-ingress"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    outside = set()
    for spec in policies.values():
        app = spec["podSelector"].get("matchLabels", {}).get("app")
        for rule in spec.get("ingress", []):
            ports = tuple(p["port"] for p in rule["ports"])
            outside |= {(app, ports, source) for source in _admits_outsiders(rule)}
    metrics = (None, (9464,), "monitoring")  # every service's /metrics, for Prometheus
    assert outside == {("gateway", (50051,), "anywhere"), ("nats", (8222,), "keda"), metrics}
    (qdrant,) = policies["qdrant-ingress"]["ingress"]
    assert qdrant["from"] == [{"podSelector": {"matchLabels": {"app": "gateway"}}}]
    egress = policies["services-egress"]
    assert egress["policyTypes"] == ["Egress"]
    assert {p["port"] for rule in egress["egress"] for p in rule["ports"]} == {4222, 53}
    for name in SERVICES:
        labels = one(target, "Deployment", name)["spec"]["template"]["metadata"]["labels"]
        assert selects(egress["podSelector"], labels), name


@everywhere
def test_nats_is_a_jetstream_cluster_with_a_route_per_replica(target: str) -> None:
    nats = one(target, "StatefulSet", "nats")
    replicas = nats["spec"]["replicas"]
    assert replicas == (1 if target == "dev" else 3)
    assert int(config(target)["CODEMEMORY_STREAM_REPLICAS"]) <= replicas
    # production speaks TLS to NATS (k8s/components/tls)
    assert (
        config(target)["CODEMEMORY_NATS_URL"]
        == ("tls" if target == "production" else "nats") + "://nats:4222"
    )
    assert nats["spec"]["serviceName"] == "nats-headless"
    assert one(target, "Service", "nats-headless")["spec"]["clusterIP"] == "None"
    raw = one(target, "ConfigMap", "nats-config")["data"]["nats.conf"]
    conf = "\n".join(line.split("#")[0] for line in raw.splitlines())
    routes = set(re.findall(r"nats://(nats-\d+)\.nats-headless:6222", conf))
    assert routes == ({f"nats-{i}" for i in range(replicas)} if replicas > 1 else set())
    # one server fsyncs every write; three rely on R3 replication
    assert ("sync_interval: always" in conf) == (replicas == 1)
    assert "server_name: $POD_NAME" in conf and "store_dir: /data" in conf
    assert re.search(r"^\s*max_pending: 128MB$", conf, re.M)  # two LOG readers of 32MB in flight each
    (container,) = pod(nats)["containers"]
    assert container["image"] == "nats:2.12-alpine"
    assert env(container)["POD_NAME"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert {"name": "data", "mountPath": "/data"} in container["volumeMounts"]
    assert [t["metadata"]["name"] for t in nats["spec"]["volumeClaimTemplates"]] == ["data"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz?js-enabled-only=true"
    assert one(target, "PodDisruptionBudget", "nats")["spec"]["maxUnavailable"] == 1
    affinity = pod(nats)["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert affinity[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    qdrant = one(target, "StatefulSet", "qdrant")
    assert pod(qdrant)["containers"][0]["image"] == "qdrant/qdrant:v1.15.0"
    assert qdrant["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "storage"
