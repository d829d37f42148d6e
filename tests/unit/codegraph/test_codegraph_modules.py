"""Import edges whatever order files arrive in: submodules seen late, self-imports, stubs."""

from __future__ import annotations

from graphfeed import Feed, edges, imp, sym


def test_a_submodule_folded_after_the_package_takes_the_edge_from_it() -> None:
    feed = Feed()
    feed.file("app/main.py", "app.main", [], imports=[imp("pkg", "jobs"), imp("pkg", "VERSION")])
    assert edges(feed.graph, "imports") == set()  # nothing known yet: waiting
    feed.file("pkg/__init__.py", "pkg", [sym("pkg.VERSION")])
    assert edges(feed.graph, "imports") == {("app/main.py", "pkg/__init__.py")}
    feed.file("pkg/jobs.py", "pkg.jobs", [sym("pkg.jobs.run")])
    assert edges(feed.graph, "imports") == {
        ("app/main.py", "pkg/__init__.py"),
        ("app/main.py", "pkg/jobs.py"),
    }


def test_an_import_of_a_name_the_package_defines_does_not_wait() -> None:
    feed = Feed()
    feed.file("pkg/__init__.py", "pkg", [sym("pkg.make")])
    feed.file("app/main.py", "app.main", [], imports=[imp("pkg", "make")])
    assert edges(feed.graph, "imports") == {("app/main.py", "pkg/__init__.py")}
    assert feed.graph.repo("acme/shop").pending_imports["app/main.py"] == set()


def test_a_package_importing_its_own_submodules() -> None:
    feed = Feed()
    feed.file("pkg/__init__.py", "pkg", [], imports=[imp("pkg", "export")])  # binds ``export``
    feed.file("pkg/export.py", "pkg.export", [sym("pkg.export.dump")])
    assert edges(feed.graph, "imports") == {("pkg/__init__.py", "pkg/export.py")}


def test_a_stub_never_hides_its_module() -> None:
    feed = Feed()
    feed.file("pkg/api.py", "pkg.api", [sym("pkg.api.get")])
    feed.file("pkg/api.pyi", "pkg.api", [])
    feed.file("app/main.py", "app.main", [], imports=[imp("pkg.api", "get")])
    assert edges(feed.graph, "imports") == {("app/main.py", "pkg/api.py")}


def test_replay_folds_the_same_edges() -> None:
    feed = Feed()
    feed.file("app/main.py", "app.main", [], imports=[imp("pkg", "jobs")])
    feed.file("pkg/__init__.py", "pkg", [])
    feed.file("pkg/jobs.py", "pkg.jobs", [])
    again = Feed()
    for envelope, seq in feed.log:
        again.graph.apply(envelope, seq)
    assert edges(again.graph, "imports") == edges(feed.graph, "imports") == {("app/main.py", "pkg/jobs.py")}
