"""Module names under source roots: the names code imports, per language; import specs rewritten."""

from __future__ import annotations

import pytest

from codememory.code import extract_file
from codememory.code.roots import JsAlias, SourceRoots

ROOTS = SourceRoots(
    python=(("libs", ""), ("services/api", ""), ("vendor/lib/kit", "kit")),
    python_dirs={"tests/e2e": "", "tests/unit/sub": "unit.sub"},
    overrides={"tests/e2e/conftest.py": "tests.e2e.conftest"},
    go=(("backend", "example.com/api"),),
    rust=(("crates/geo", "geo_kit"),),
    js_base=(("web", "web/src", ("components", "util")),),
    js_aliases=(JsAlias(scope="web", pattern="@app/*", targets=("web/src/app/*",)),),
)


@pytest.mark.parametrize(
    ("language", "path", "module"),
    [
        ("python", "libs/acme/events/catalogue.py", "acme.events.catalogue"),
        ("python", "libs/acme/__init__.py", "acme"),
        ("python", "services/api/acme/api/main.py", "acme.api.main"),
        ("python", "vendor/lib/kit/io.py", "kit.io"),
        ("python", "tests/e2e/helpers.py", "helpers"),
        ("python", "tests/e2e/conftest.py", "tests.e2e.conftest"),
        ("python", "tests/unit/sub/test_x.py", "unit.sub.test_x"),
        ("python", "src/pkg/mod.py", "pkg.mod"),  # under no root: the path rule
        ("go", "backend/internal/store/db.go", "example.com.api.internal.store"),
        ("go", "backend/main.go", "example.com.api"),
        ("go", "other/x.go", "other"),
        ("rust", "crates/geo/src/lib.rs", "geo_kit"),
        ("rust", "crates/geo/src/shape/mod.rs", "geo_kit.shape"),
        ("rust", "crates/geo/src/area.rs", "geo_kit.area"),
        ("typescript", "web/src/app/util.ts", "web.src.app.util"),
    ],
)
def test_module_names_under_roots(language: str, path: str, module: str) -> None:
    assert ROOTS.module_name(language, path) == module


def test_js_aliases_and_base_url_become_relative_paths() -> None:
    assert ROOTS.import_spec("typescript", "web/src/pages/home.ts", "@app/util") == "../app/util"
    assert ROOTS.import_spec("tsx", "web/src/pages/home.tsx", "components/Button") == "../components/Button"
    assert ROOTS.import_spec("typescript", "web/src/pages/home.ts", "react") == "react"
    assert ROOTS.import_spec("typescript", "web/src/pages/home.ts", "./local") == "./local"
    assert ROOTS.import_spec("typescript", "other/a.ts", "@app/util") == "@app/util"  # out of scope


def test_rust_crate_paths_take_the_crate_name() -> None:
    assert ROOTS.import_spec("rust", "crates/geo/src/area.rs", "crate::shape") == "geo_kit::shape"
    assert ROOTS.import_spec("rust", "elsewhere/src/a.rs", "crate::shape") == "crate::shape"


def test_extraction_names_symbols_and_imports_under_the_roots() -> None:
    source = b"from acme.events import catalogue\nfrom . import util\n\ndef run():\n    catalogue.load()\n"
    event = extract_file("r", "services/api/acme/api/main.py", source, ROOTS)
    assert event.module == "acme.api.main"
    assert "acme.api.main.run" in {s.qualname for s in event.symbols}
    assert {i.module for i in event.imports} == {"acme.events", "acme.api"}
    ts = extract_file("r", "web/src/pages/home.ts", b"import { u } from '@app/util';\n", ROOTS)
    assert [i.module for i in ts.imports] == ["../app/util"]
