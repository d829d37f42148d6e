"""Roots read from build files: hatch, setuptools, setup.cfg, poetry, src/flat, tsconfig, go, cargo."""

from __future__ import annotations

from pathlib import Path

from codememory.code.declared import read_declared
from codememory.code.roots import JsAlias


def write(root: Path, files: dict[str, str]) -> list[str]:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return sorted(files)


def test_hatch_dev_mode_dirs_and_wheel_sources(tmp_path: Path) -> None:
    paths = write(
        tmp_path,
        {
            "pyproject.toml": (
                '[tool.hatch.build]\ndev-mode-dirs = ["libs", "services/api"]\n'
                '[tool.hatch.build.targets.wheel.sources]\n"src/kit" = "kit"\n'
            ),
            "libs/acme/a.py": "",
            "services/api/acme/api/main.py": "",
        },
    )
    found = read_declared(tmp_path, paths)
    assert found.python == [("libs", ""), ("services/api", ""), ("src/kit", "kit")]
    assert found.sources == ["pyproject.toml"]


def test_setuptools_poetry_setup_cfg_in_a_monorepo(tmp_path: Path) -> None:
    paths = write(
        tmp_path,
        {
            "packages/one/pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "packages/two/pyproject.toml": '[tool.setuptools]\npackage-dir = {"two" = "lib/two"}\n',
            "packages/three/pyproject.toml": (
                '[tool.poetry]\npackages = [{include = "three", from = "code"}]\n'
            ),
            "packages/four/setup.cfg": "[options]\npackage_dir =\n    =source\n",
            "packages/five/setup.py": "from setuptools import setup\nsetup()\n",
            "packages/five/src/five/__init__.py": "",
            "packages/six/pyproject.toml": "[project]\nname = 'six'\n",
            "packages/six/six/__init__.py": "",
            "packages/bad/pyproject.toml": "this is = = not toml",
        },
    )
    found = read_declared(tmp_path, paths)
    assert sorted(found.python) == [
        ("packages/bad", ""),
        ("packages/five/src", ""),
        ("packages/four/source", ""),
        ("packages/one/src", ""),
        ("packages/six", ""),
        ("packages/three/code", ""),
        ("packages/two/lib/two", "two"),
    ]


def test_a_top_level_src_layout_and_a_flat_top_level(tmp_path: Path) -> None:
    src = write(tmp_path / "a", {"pyproject.toml": "[project]\nname='a'\n", "src/a/m.py": ""})
    assert read_declared(tmp_path / "a", src).python == [("src", "")]
    flat = write(tmp_path / "b", {"pyproject.toml": "[project]\nname='b'\n", "b/m.py": ""})
    assert read_declared(tmp_path / "b", flat).python == []  # paths are already module names


def test_tsconfig_go_mod_and_cargo(tmp_path: Path) -> None:
    paths = write(
        tmp_path,
        {
            "web/tsconfig.json": (
                '{\n  // comments and trailing commas, as tsc allows\n  "compilerOptions": {\n'
                '    "baseUrl": "src",\n    "paths": {"@app/*": ["app/*"],},\n  },\n}\n'
            ),
            "backend/go.mod": "module example.com/api\n\ngo 1.22\n",
            "crates/geo/Cargo.toml": '[package]\nname = "geo-kit"\nversion = "0.1.0"\n',
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        },
    )
    found = read_declared(tmp_path, paths)
    assert found.js_base == [("web", "web/src")]
    assert found.js_aliases == [JsAlias(scope="web", pattern="@app/*", targets=("web/src/app/*",))]
    assert found.go == [("backend", "example.com/api")]
    assert found.rust == [("crates/geo", "geo_kit")]
