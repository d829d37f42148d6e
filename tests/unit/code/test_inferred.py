"""Roots inferred from the project's own imports: longest imported suffix, per-directory consensus."""

from __future__ import annotations

from codememory.code.inferred import imported_names, infer_python_roots


def test_imported_names() -> None:
    source = (
        "import os, acme.core as core\nfrom acme.events import (\n    catalogue,\n    Envelope as E,\n)\n"
        "from . import sibling\n    from acme.x import y  # nested\nimport a.b \\\n    , c\n"
    )
    assert imported_names(source) == {
        "os",
        "acme.core",
        "acme.events",
        "acme.events.catalogue",
        "acme.events.Envelope",
        "acme.x",
        "acme.x.y",
        "a.b",
        "c",
    }


def test_each_directory_takes_the_root_its_files_are_imported_under() -> None:
    paths = [
        "libs/acme/events/catalogue.py",
        "libs/acme/events/types.py",  # ``types`` is also a standard module: one vote, outvoted
        "libs/acme/events/codec.py",
        "libs/acme/events/deep/never_imported.py",
        "tests/e2e/helpers.py",
        "tests/e2e/test_flow.py",
        "scripts/run.py",
    ]
    imported = {"acme.events.catalogue", "acme.events.codec", "types", "helpers", "os"}
    assert infer_python_roots(paths, imported) == {
        "libs/acme/events": "libs",
        "libs/acme/events/deep": "libs",
        "tests/e2e": "tests/e2e",
    }
