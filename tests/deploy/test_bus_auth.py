"""The deployments' NATS logins follow the topology: the generated authorization block is current,
every password it names reaches the server from a secret, and each service gets its own user only."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import yaml
from kustomize import render  # type: ignore[import-not-found]

from codememory.bus.permissions import env_variable

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_nats_auth", ROOT / "scripts" / "gen_nats_auth.py")
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

SERVICE_MODULE = re.compile(r"codememory\.(\w+)\.main")


def _variables(text: str) -> set[str]:
    return set(re.findall(r"password: \$(\w+)", text))


def test_the_generated_files_match_the_topology() -> None:
    text = gen.render()
    assert (ROOT / "deploy" / "nats" / "auth.conf").read_text() == text, "run scripts/gen_nats_auth.py"
    assert (ROOT / "k8s" / "base" / "nats-auth.yaml").read_text() == gen.configmap(text)
    assert '"$JS.API.STREAM.DELETE' not in text and 'password: "' not in text  # no secret in the repo


def test_compose_gives_the_server_every_password_and_each_service_its_own() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    needed = _variables((ROOT / "deploy" / "nats" / "auth.conf").read_text())
    nats = compose["services"]["nats"]
    assert set(nats["environment"]) == needed
    assert all(v.startswith("${" + k + ":?") for k, v in nats["environment"].items())
    assert "include auth.conf" in (ROOT / "deploy" / "nats" / "nats.conf").read_text()
    for name, service in compose["services"].items():
        match = SERVICE_MODULE.search(" ".join(service.get("command", [])))
        if not match:
            continue
        env = service["environment"]
        assert env["CODEMEMORY_NATS_USER"] == name == match.group(1)
        assert env["CODEMEMORY_NATS_PASSWORD"].startswith("${" + env_variable(name) + ":?")
        assert not any(k.startswith("CM_NATS_PASSWORD") for k in env)  # nobody else's password


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def test_kubernetes_takes_every_password_from_the_secret() -> None:
    for target in (ROOT / "k8s" / "base", ROOT / "k8s" / "overlays" / "dev"):
        objects = render(target)
        configs = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ConfigMap"}
        assert "include auth.conf" in configs["nats-config"]["data"]["nats.conf"]
        needed = _variables(configs["nats-auth"]["data"]["auth.conf"])
        [nats] = [o for o in objects if o["kind"] == "StatefulSet" and o["metadata"]["name"] == "nats"]
        spec = nats["spec"]["template"]["spec"]
        env = _env(spec["containers"][0])
        assert needed <= set(env)
        for variable in needed:
            ref = env[variable]["secretKeyRef"]
            assert ref["name"] == "codememory-nats-users" and env_variable(ref["key"]) == variable
        [volume] = [v for v in spec["volumes"] if v["name"] == "config"]
        assert {s["configMap"]["name"] for s in volume["projected"]["sources"]} == {
            "nats-config",
            "nats-auth",
        }
        for workload in objects:
            if workload["kind"] != "Deployment":
                continue
            container = workload["spec"]["template"]["spec"]["containers"][0]
            match = SERVICE_MODULE.search(" ".join(container.get("command", [])))
            if not match:
                continue
            name = workload["metadata"]["name"]
            env = _env(container)
            assert env["CODEMEMORY_NATS_USER"] == name == match.group(1)
            assert env["CODEMEMORY_NATS_PASSWORD"]["secretKeyRef"] == {
                "name": "codememory-nats-users",
                "key": name,
            }


def test_the_tls_overlay_gives_every_client_the_ca_and_the_server_its_certificate_from_secrets() -> None:
    base = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    tls = yaml.safe_load((ROOT / "docker-compose.tls.yml").read_text())
    assert set(tls["secrets"]) == {"nats-ca", "nats-cert", "nats-key"}
    assert all(not s["file"].startswith("./deploy") for s in tls["secrets"].values())  # not in the repo
    assert tls["services"]["nats"]["secrets"] == ["nats-ca", "nats-cert", "nats-key"]
    conf = (ROOT / "deploy" / "nats" / "nats-tls.conf").read_text()
    assert "include codememory.conf" in conf and "/run/secrets/nats-key" in conf
    clients = [
        n for n, s in base["services"].items() if SERVICE_MODULE.search(" ".join(s.get("command", [])))
    ]
    for name in clients:
        env = tls["services"][name]["environment"]
        assert (
            env["CODEMEMORY_NATS_URL"].startswith("tls://")
            and env["CODEMEMORY_NATS_CA"] == "/run/secrets/nats-ca"
        )


def test_production_takes_the_nats_certificates_from_a_secret() -> None:
    objects = render(ROOT / "k8s" / "overlays" / "production")
    configs = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ConfigMap"}
    assert configs["codememory-config"]["data"]["CODEMEMORY_NATS_CA"] == "/etc/codememory-tls/ca.crt"
    tls_conf = configs["nats-tls"]["data"]["tls.conf"]
    assert "include nats.conf" in tls_conf and "/etc/nats-tls/tls.key" in tls_conf
    assert not [o for o in objects if o["kind"] == "Secret"]  # referenced, never written
    for workload in objects:
        if workload["kind"] not in ("Deployment", "StatefulSet"):
            continue
        spec = workload["spec"]["template"]["spec"]
        container = spec["containers"][0]
        uses_nats = workload["metadata"]["name"] == "nats" or SERVICE_MODULE.search(
            " ".join(container.get("command", []))
        )
        if not uses_nats:
            continue
        secrets = [v["secret"]["secretName"] for v in spec["volumes"] if "secret" in v]
        grpc = ["codememory-grpc-tls"] if workload["metadata"]["name"] == "gateway" else []  # its API's
        assert secrets == ["codememory-nats-tls", *grpc], workload["metadata"]["name"]
        mounted = {m["name"] for m in container["volumeMounts"]}
        assert {v["name"] for v in spec["volumes"] if "secret" in v} <= mounted
