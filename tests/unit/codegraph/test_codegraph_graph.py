"""The package's shape: the fold entry point sits above the folds, which sit above the store."""

from __future__ import annotations

import ast
from pathlib import Path

import codememory.codegraph as package
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.store import GraphStore

ROOT = Path(package.__file__).parent


def imports_within_package() -> dict[str, set[str]]:
    modules = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"}
    found: dict[str, set[str]] = {}
    for name in modules:
        deps: set[str] = set()
        for node in ast.walk(ast.parse((ROOT / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "codememory.codegraph":
                deps |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("codememory.codegraph."):
                deps.add(node.module.rsplit(".", 1)[-1])  # type: ignore[union-attr]
        found[name] = deps & modules
    return found


def test_no_module_of_the_package_imports_another_in_a_circle() -> None:
    deps = imports_within_package()
    state = dict.fromkeys(deps, 0)  # 0 new, 1 on the path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(deps[name]):
            assert state[dep] != 1, f"import circle: {' -> '.join([*path, dep])}"
            if state[dep] == 0:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(deps):
        if state[name] == 0:
            visit(name, [name])


def test_the_folds_write_a_store_and_only_the_graph_dispatches_to_them() -> None:
    deps = imports_within_package()
    for fold in ("fold_code", "fold_history", "fold_memory"):
        assert "graph" not in deps[fold] and "store" in deps[fold]
    assert {"fold_code", "fold_history", "fold_memory"} <= deps["graph"]
    assert issubclass(CodeGraph, GraphStore) and not hasattr(GraphStore, "apply")
