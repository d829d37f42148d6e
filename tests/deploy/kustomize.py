"""A small kustomize for the tests: no kustomize or kubectl binary is here, and the tests must check the
objects an overlay applies, not the files it is made of.

It does what k8s/ uses, the way kustomize does it, and refuses anything else (``Unsupported``) so a new
feature in a kustomization cannot be ignored silently:

- ``resources`` (files, and directories holding a kustomization) and ``components``: a component's
  transformations apply to everything accumulated before it;
- ``configMapGenerator`` / ``secretGenerator`` with ``literals`` and ``disableNameSuffixHash`` (the
  hash, and rewriting references to it, are not reproduced);
- ``patches`` with a ``path`` to a strategic-merge patch, matched by kind and name: mappings merge, a
  null removes a key, lists of named items (containers, env, volumes, ports) merge by name, other
  lists are replaced, and ``$patch: delete`` removes the whole object;
- ``namespace``, ``labels`` (metadata, and pod templates with ``includeTemplates``), ``replicas``,
  ``images`` (``newName``, ``newTag``, ``digest``).
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import yaml

Obj = dict[str, Any]

KEYS = {
    "apiVersion",
    "kind",
    "resources",
    "components",
    "configMapGenerator",
    "secretGenerator",
    "patches",
    "namespace",
    "labels",
    "replicas",
    "images",
}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"}
SCALABLE = {"Deployment", "StatefulSet", "ReplicaSet"}


class Unsupported(Exception):
    """The kustomization uses something this renderer does not do."""


def render(directory: Path) -> list[Obj]:
    """The objects ``kubectl apply -k directory`` would apply."""
    return _build(directory, [], component=False)


def load_documents(path: Path) -> list[Obj]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def _build(directory: Path, accumulated: list[Obj], *, component: bool) -> list[Obj]:
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    if unknown := set(spec) - KEYS:
        raise Unsupported(f"{directory}: {sorted(unknown)}")
    if (spec.get("kind") == "Component") != component:
        raise Unsupported(f"{directory}: kind {spec.get('kind')} where a component is {component}")
    objects = list(accumulated)
    for entry in spec.get("resources", []):
        path = directory / entry
        objects += render(path) if path.is_dir() else load_documents(path)
    for entry in spec.get("components", []):
        objects = _build(directory / entry, objects, component=True)
    objects += [_generated("ConfigMap", g) for g in spec.get("configMapGenerator", [])]
    objects += [_generated("Secret", g) for g in spec.get("secretGenerator", [])]
    for patch in spec.get("patches", []):
        objects = _patched(objects, directory, patch)
    if "namespace" in spec:
        for obj in objects:
            if obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = spec["namespace"]
    for labels in spec.get("labels", []):
        _label(objects, labels)
    for replicas in spec.get("replicas", []):
        _scale(objects, replicas)
    for image in spec.get("images", []):
        _retag(objects, image)
    _check_unique(objects)
    return objects


def _generated(kind: str, generator: Obj) -> Obj:
    if set(generator) - {"name", "literals", "options"} or generator.get("options") != {
        "disableNameSuffixHash": True
    }:
        raise Unsupported(f"{kind} generator {generator.get('name')}: only literals without a hash")
    pairs = dict(literal.split("=", 1) for literal in generator["literals"])
    obj: Obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": generator["name"]}}
    if kind == "Secret":
        obj["type"] = "Opaque"
        obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in pairs.items()}
    else:
        obj["data"] = pairs
    return obj


def _patched(objects: list[Obj], directory: Path, entry: Obj) -> list[Obj]:
    if set(entry) != {"path"}:
        raise Unsupported(f"patch {entry}: only a path to a strategic-merge patch")
    (patch,) = load_documents(directory / entry["path"])
    key = (patch["kind"], patch["metadata"]["name"])
    matches = [obj for obj in objects if (obj["kind"], obj["metadata"]["name"]) == key]
    if len(matches) != 1:
        raise Unsupported(f"patch {entry['path']} matches {len(matches)} objects")
    if patch.get("$patch") == "delete":
        return [obj for obj in objects if obj is not matches[0]]
    merged = _merge(matches[0], patch)
    return [merged if obj is matches[0] else obj for obj in objects]


def _merge(base: Any, patch: Any) -> Any:
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            if key.startswith("$"):
                raise Unsupported(f"patch directive {key} inside an object")
            if value is None:
                out.pop(key, None)
            else:
                out[key] = _merge(out[key], value) if key in out else copy.deepcopy(value)
        return out
    if isinstance(base, list) and isinstance(patch, list) and _named(base) and _named(patch):
        out_list = list(base)
        index = {item["name"]: i for i, item in enumerate(base)}
        for item in patch:
            if item["name"] in index:
                out_list[index[item["name"]]] = _merge(base[index[item["name"]]], item)
            else:
                out_list.append(copy.deepcopy(item))
        return out_list
    return copy.deepcopy(patch)


def _named(items: list[Any]) -> bool:
    return all(isinstance(item, dict) and "name" in item for item in items)


def _label(objects: list[Obj], entry: Obj) -> None:
    if set(entry) - {"pairs", "includeSelectors", "includeTemplates"} or entry.get("includeSelectors"):
        raise Unsupported(f"labels {entry}: only pairs on metadata and templates")
    for obj in objects:
        obj["metadata"].setdefault("labels", {}).update(entry["pairs"])
        template = obj.get("spec", {}).get("template")
        if entry.get("includeTemplates") and isinstance(template, dict):
            template.setdefault("metadata", {}).setdefault("labels", {}).update(entry["pairs"])


def _scale(objects: list[Obj], entry: Obj) -> None:
    targets = [o for o in objects if o["kind"] in SCALABLE and o["metadata"]["name"] == entry["name"]]
    if not targets:
        raise Unsupported(f"replicas for {entry['name']}: no such workload")
    for obj in targets:
        obj["spec"]["replicas"] = entry["count"]


def _retag(objects: list[Obj], entry: Obj) -> None:
    for obj in objects:
        pod = obj.get("spec", {}).get("template", {}).get("spec", {})
        for container in pod.get("containers", []) + pod.get("initContainers", []):
            name, tag = _split_image(container["image"])
            if name != entry["name"]:
                continue
            name = entry.get("newName", name)
            tag = ":" + entry["newTag"] if "newTag" in entry else tag
            container["image"] = f"{name}@{entry['digest']}" if "digest" in entry else name + tag


def _split_image(image: str) -> tuple[str, str]:
    """``registry:5000/repo:tag`` -> (``registry:5000/repo``, ``:tag``); a digest stays with the tag."""
    cut = image.find("@")
    cut = len(image) if cut < 0 else cut
    colon = image.rfind(":", image.rfind("/") + 1, cut)
    cut = colon if colon >= 0 else cut
    return image[:cut], image[cut:]


def _check_unique(objects: list[Obj]) -> None:
    keys = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects]
    if duplicates := {key for key in keys if keys.count(key) > 1}:
        raise Unsupported(f"the same object twice: {sorted(map(str, duplicates))}")
