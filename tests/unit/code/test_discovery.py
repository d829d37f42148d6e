"""Discovered roots end to end: a monorepo indexed and folded has the import edges its code declares."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from codememory.code.discovery import cached_roots, discover_roots
from codememory.code.indexer import index_repository
from codememory.codegraph import CodeGraph
from codememory.codegraph.queries import dependents
from codememory.codegraph.views import NodeRef
from codememory.events import new_envelope

FILES = {
    "pyproject.toml": '[tool.hatch.build]\ndev-mode-dirs = ["libs", "services/api"]\n',
    "libs/acme/events/__init__.py": "from acme.events.catalogue import Stored\n",
    "libs/acme/events/catalogue.py": "class Stored:\n    pass\n",
    "services/api/acme/api/main.py": (
        "from acme.events.catalogue import Stored\n\ndef run():\n    return Stored()\n"
    ),
    "services/worker/acme/worker/main.py": (
        "from acme.events import Stored\nfrom acme.worker.jobs import job\n"
    ),
    "services/worker/acme/worker/jobs.py": "def job():\n    pass\n",
    "tests/helpers.py": "def make():\n    pass\n",
    "tests/a/util.py": "",
    "tests/a/test_one.py": "from helpers import make\nfrom util import x\n",
    "tests/b/util.py": "",
    "tests/b/test_two.py": "from util import x\n",
}


def repo(root: Path) -> Path:
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_declared_then_inferred_then_unique(tmp_path: Path) -> None:
    roots = discover_roots(repo(tmp_path))
    names = {p: roots.module_name("python", p) for p in FILES if p.endswith(".py")}
    assert names["services/api/acme/api/main.py"] == "acme.api.main"  # declared
    assert names["services/worker/acme/worker/jobs.py"] == "acme.worker.jobs"  # inferred from imports
    assert names["tests/helpers.py"] == "helpers"
    assert names["tests/a/test_one.py"] == "test_one"
    # two files the roots would both call ``util`` keep their path names
    assert (names["tests/a/util.py"], names["tests/b/util.py"]) == ("tests.a.util", "tests.b.util")
    assert len(set(names.values())) == len(names)
    assert cached_roots(tmp_path) == roots


def test_every_importer_is_a_dependent_of_the_library_module(tmp_path: Path) -> None:
    events = list(index_repository(repo(tmp_path), "mono", {}, workers=1))
    graph = CodeGraph("t")
    at = datetime(2026, 11, 1, tzinfo=UTC)
    for seq, event in enumerate(events, 1):
        graph.apply(new_envelope(event, event_id=str(seq), tenant="t", occurred_at=at), seq)
    found = dependents(graph, NodeRef(kind="file", name="libs/acme/events/catalogue.py", repo="mono"))
    files = {d.node.name for d in found if d.node.kind == "file"}
    assert files == {"libs/acme/events/__init__.py", "services/api/acme/api/main.py"}
    callers = {d.node.name for d in found if d.edge == "calls"}
    assert callers == {"acme.api.main.run"}
    worker = dependents(graph, NodeRef(kind="file", name="services/worker/acme/worker/jobs.py", repo="mono"))
    assert {d.node.name for d in worker} == {"services/worker/acme/worker/main.py"}


def test_a_package_named_alike_in_each_project_is_found_from_the_importer(tmp_path: Path) -> None:
    files = {
        "one/pyproject.toml": "[project]\nname = 'one'\n",
        "one/one/__init__.py": "",
        "one/tests/__init__.py": "",
        "one/tests/util.py": "def x():\n    pass\n",
        "one/tests/test_a.py": "from tests.util import x\nfrom one import y\n",
        "two/pyproject.toml": "[project]\nname = 'two'\n",
        "two/two/__init__.py": "",
        "two/tests/__init__.py": "",
        "two/tests/util.py": "def x():\n    pass\n",
        "two/tests/test_b.py": "from tests.util import x\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    roots = discover_roots(tmp_path)
    assert roots.module_name("python", "one/tests/util.py") == "one.tests.util"  # the package's tree by path
    assert roots.module_name("python", "one/one/__init__.py") == "one"
    assert roots.import_spec("python", "two/tests/test_b.py", "tests.util") == "two.tests.util"
    assert roots.import_spec("python", "elsewhere/x.py", "tests.util") == "tests.util"
    events = {e.path: e for e in index_repository(tmp_path, "m", {}, workers=1)}
    assert {i.module for i in events["one/tests/test_a.py"].imports} == {"one.tests.util", "one"}


POLYGLOT = {
    "backend/go.mod": "module example.com/api\n\ngo 1.22\n",
    "backend/internal/store/a.go": "package store\n\nfunc Open() int { return helper() }\n",
    "backend/internal/store/b.go": "package store\n\nfunc helper() int { return 1 }\n",
    "backend/main.go": (
        'package main\n\nimport "example.com/api/internal/store"\n\nfunc main() { store.Open() }\n'
    ),
    "web/tsconfig.json": '{ "compilerOptions": { "baseUrl": "src", "paths": { "@app/*": ["app/*"] } } }\n',
    "web/src/app/util.ts": "export function util(): number { return 1; }\n",
    "web/src/pages/home.ts": (
        "import { util } from '@app/util';\nexport function home(): number { return util(); }\n"
    ),
    "crates/geo/Cargo.toml": '[package]\nname = "geo-kit"\nversion = "0.1.0"\n',
    "crates/geo/src/lib.rs": "pub mod shape;\nuse crate::shape::area;\npub fn total() -> i32 { area() }\n",
    "crates/geo/src/shape.rs": "pub fn area() -> i32 { 1 }\n",
}


def test_go_modules_ts_paths_and_cargo_crates_link_across_their_roots(tmp_path: Path) -> None:
    for path, text in POLYGLOT.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    graph = CodeGraph("t")
    at = datetime(2026, 11, 1, tzinfo=UTC)
    for seq, event in enumerate(index_repository(tmp_path, "poly", {}, workers=1), 1):
        graph.apply(new_envelope(event, event_id=str(seq), tenant="t", occurred_at=at), seq)
    calls = {(graph.g[s].key[-1], graph.g[d].key[-1]) for s, d, kind in graph.edges if kind == "calls"}
    assert calls == {
        ("example.com.api.main", "example.com.api.internal.store.Open"),
        ("example.com.api.internal.store.Open", "example.com.api.internal.store.helper"),
        ("web.src.pages.home.home", "web.src.app.util.util"),
        ("geo_kit.total", "geo_kit.shape.area"),
    }
