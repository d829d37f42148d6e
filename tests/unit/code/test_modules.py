"""Module names per language, and Python's relative imports."""

from __future__ import annotations

import pytest

from codememory.code.modules import file_symbol_name, module_name, resolve_relative


@pytest.mark.parametrize(
    ("language", "path", "declared", "module"),
    [
        ("python", "pkg/mod.py", "", "pkg.mod"),
        ("python", "pkg/__init__.py", "", "pkg"),
        ("python", "src/pkg/mod.py", "", "pkg.mod"),
        ("python", "lib/pkg/__init__.py", "", "pkg"),
        ("python", "setup.py", "", "setup"),
        ("python", "src.py", "", "src"),
        ("go", "internal/store/db.go", "store", "internal.store"),
        ("go", "main.go", "main", "main"),
        ("java", "src/main/java/com/acme/A.java", "com.acme", "com.acme"),
        ("java", "A.java", "", "A"),
        ("rust", "src/lib.rs", "", "crate"),
        ("rust", "src/geo/mod.rs", "", "geo"),
        ("rust", "src/geo/point.rs", "", "geo.point"),
        ("typescript", "src/ui/index.ts", "", "src.ui.index"),
    ],
)
def test_module_name(language: str, path: str, declared: str, module: str) -> None:
    assert module_name(language, path, declared) == module


def test_file_symbol_is_the_path_where_files_share_a_namespace() -> None:
    assert file_symbol_name("go", "a/b.go", "a") == "a/b.go"
    assert file_symbol_name("java", "A.java", "com.acme") == "A.java"
    assert file_symbol_name("python", "a/b.py", "a.b") == "a.b"


def test_resolve_relative() -> None:
    assert resolve_relative("pkg.sub.mod", False, 1, "x") == "pkg.sub.x"
    assert resolve_relative("pkg.sub.mod", False, 2, "") == "pkg"
    assert resolve_relative("pkg.sub", True, 1, "x") == "pkg.sub.x"
    assert resolve_relative("pkg", False, 3, "x") == "x"  # past the top: best effort
