"""The roots a repository was last indexed with decide which unchanged files are parsed again."""

from __future__ import annotations

from pathlib import Path

from codememory.cli.rootcache import load_roots, save_roots, stale_paths
from codememory.code.roots import JsAlias, SourceRoots

OLD = SourceRoots(python=(("libs", ""),))
NEW = SourceRoots(python=(("libs", ""), ("services/api", "")))


def test_saved_roots_come_back_per_repository(tmp_path: Path) -> None:
    assert load_roots(tmp_path, "github.com/acme/app") is None
    save_roots(tmp_path, "github.com/acme/app", NEW)
    assert load_roots(tmp_path, "github.com/acme/app") == NEW
    assert load_roots(tmp_path, "/home/me/app") is None
    (next((tmp_path / "roots").iterdir())).write_text("{not json")
    assert load_roots(tmp_path, "github.com/acme/app") is None


def test_only_files_whose_module_changed_are_stale() -> None:
    stale = stale_paths(OLD, NEW)
    assert stale("services/api/acme/api/main.py")
    assert not stale("libs/acme/core.py")
    assert not stale("README.md")
    assert not stale_paths(NEW, NEW)("services/api/acme/api/main.py")
    assert stale_paths(None, NEW)("libs/acme/core.py")  # never recorded: parse everything once


def test_js_files_are_stale_when_aliases_change() -> None:
    aliased = SourceRoots(js_aliases=(JsAlias(scope="", pattern="@/*", targets=("src/*",)),))
    assert stale_paths(SourceRoots(), aliased)("src/app.ts")
    assert not stale_paths(aliased, aliased)("src/app.ts")
