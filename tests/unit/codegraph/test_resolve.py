from __future__ import annotations

import pytest
from graphfeed import Feed, calls, edges, imp, sym

from codememory.codegraph.resolve import RepoIndex, SymFact
from codememory.events import CodeRef, ImportRef


def test_self_call_resolves_to_an_inherited_method(shop_feed: Feed) -> None:
    assert ("pkg.models.Model.validate", "pkg.models.Base.save") in edges(shop_feed.graph, "calls")
    assert ("pkg.models.Model", "pkg.models.Base") in edges(shop_feed.graph, "inherits")


def test_import_bindings_aliases_and_re_exports(shop_feed: Feed) -> None:
    calls_ = edges(shop_feed.graph, "calls")
    assert ("pkg.api.create", "pkg.models.Model") in calls_  # via `from pkg import Model` re-export
    assert ("pkg.api.create", "pkg.models.helper") in calls_  # via `import pkg.models as m`
    assert ("pkg.models.Model.validate", "pkg.models.helper") in calls_  # module scope


def test_unique_name_is_the_last_resort_and_externals_stay_unresolved(shop_feed: Feed) -> None:
    from_create = {d for s, d in edges(shop_feed.graph, "calls") if s == "pkg.api.create"}
    assert "pkg.models.Model.validate" in from_create  # obj.validate: the one `validate`
    assert from_create == {"pkg.models.Model", "pkg.models.helper", "pkg.models.Model.validate"}


def test_ambiguous_names_do_not_fall_back(shop_feed: Feed) -> None:
    shop_feed.file(
        "pkg/other.py",
        "pkg.other",
        [sym("pkg.other.Form", "class"), sym("pkg.other.Form.validate", "method", "pkg.other.Form")],
    )
    shop_feed.file("pkg/use.py", "pkg.use", [sym("pkg.use.go")], refs=[calls("pkg.use.go", "thing.validate")])
    assert not {d for s, d in edges(shop_feed.graph, "calls") if s == "pkg.use.go"}


def test_imports_become_file_edges(shop_feed: Feed) -> None:
    imports = edges(shop_feed.graph, "imports")
    assert ("pkg/api.py", "pkg/models.py") in imports
    assert ("pkg/api.py", "pkg/__init__.py") in imports
    assert ("pkg/__init__.py", "pkg/models.py") in imports


def test_a_file_indexed_later_resolves_earlier_references(feed: Feed) -> None:
    feed.file(
        "a.py",
        "a",
        [sym("a.run")],
        imports=[imp("b", "later")],
        refs=[calls("a.run", "later"), calls("a.run", "Widget")],
    )
    assert not edges(feed.graph, "calls")
    feed.file("b.py", "b", [sym("b.later")])
    assert edges(feed.graph, "calls") == {("a.run", "b.later")}
    assert edges(feed.graph, "imports") == {("a.py", "b.py")}


def test_re_extraction_replaces_outgoing_edges(shop_feed: Feed) -> None:
    shop_feed.file(
        "pkg/api.py",
        "pkg.api",
        [sym("pkg.api.create")],
        imports=[imp("pkg.models", "helper")],
        refs=[calls("pkg.api.create", "helper")],
        h="h2",
    )
    from_create = {d for s, d in edges(shop_feed.graph, "calls") if s == "pkg.api.create"}
    assert from_create == {"pkg.models.helper"}
    assert ("pkg/api.py", "pkg/__init__.py") not in edges(shop_feed.graph, "imports")


def test_javascript_relative_specifiers_resolve_by_path() -> None:
    index = RepoIndex("r")
    index.add_file("src/util/math.ts", "src.util.math", "typescript", ())
    index.add_symbol("src.util.math.add", SymFact("add", "function", "src.util.math", "src/util/math.ts"))
    index.add_file(
        "src/app.ts", "src.app", "typescript", (ImportRef(module="./util/math", name="add", alias="plus"),)
    )
    index.add_symbol("src.app.main", SymFact("main", "function", "src.app", "src/app.ts"))
    ref = CodeRef(kind="calls", source="src.app.main", target="plus")
    assert index.resolve("src/app.ts", ref) == "src.util.math.add"
    assert index.import_target("src/app.ts", ImportRef(module="./util/math"))[0] == "src/util/math.ts"


def test_go_import_paths_match_the_package_by_suffix_and_this_methods() -> None:
    index = RepoIndex("r")
    index.add_file("internal/store/db.go", "internal.store", "go", ())
    index.add_symbol(
        "internal.store.Open", SymFact("Open", "function", "internal.store", "internal/store/db.go")
    )
    index.add_file("cmd/main.go", "cmd", "go", (ImportRef(module="github.com/acme/app/internal/store"),))
    index.add_symbol("cmd.main", SymFact("main", "function", "cmd", "cmd/main.go"))
    assert (
        index.resolve("cmd/main.go", CodeRef(kind="calls", source="cmd.main", target="store.Open"))
        == "internal.store.Open"
    )
    assert (
        index.resolve("cmd/main.go", CodeRef(kind="calls", source="cmd.main", target="fmt.Println")) is None
    )


def test_calls_only_resolve_to_callables() -> None:
    index = RepoIndex("r")
    index.add_file("m.py", "m", "python", ())
    index.add_symbol("m", SymFact("m", "module", "", "m.py"))
    index.add_symbol("m.f", SymFact("f", "function", "m", "m.py"))
    index.add_file("n.py", "n", "python", (ImportRef(module="m"),))
    index.add_symbol("n.g", SymFact("g", "function", "n", "n.py"))
    assert index.resolve("n.py", CodeRef(kind="calls", source="n.g", target="m")) is None
    assert index.resolve("n.py", CodeRef(kind="calls", source="n.g", target="m.f")) == "m.f"
    assert index.resolve("n.py", CodeRef(kind="references", source="n.g", target="m")) == "m"


def test_builtin_member_names_never_fall_back(feed: Feed) -> None:
    feed.file(
        "jar.py",
        "jar",
        [
            sym("jar.Jar", "class"),
            sym("jar.Jar.update", "method", "jar.Jar"),
            sym("jar.Jar.refresh_all", "method", "jar.Jar"),
        ],
    )
    feed.file(
        "use.py",
        "use",
        [sym("use.go")],
        refs=[calls("use.go", "settings.update"), calls("use.go", "jar.refresh_all")],
    )
    assert {d for s, d in edges(feed.graph, "calls") if s == "use.go"} == {"jar.Jar.refresh_all"}


def test_names_nested_in_functions_or_module_functions_never_fall_back(feed: Feed) -> None:
    feed.file(
        "t.py",
        "t",
        [sym("t.test_x"), sym("t.test_x.options", parent="t.test_x"), sym("t.run_job")],
    )
    feed.file(
        "u.py", "u", [sym("u.go")], refs=[calls("u.go", "client.options"), calls("u.go", "queue.run_job")]
    )
    assert not {d for s, d in edges(feed.graph, "calls") if s == "u.go"}


def test_a_known_receiver_missing_the_member_does_not_fall_back(feed: Feed) -> None:
    feed.file("ctx.py", "ctx", [sym("ctx.Ctx", "class"), sym("ctx.Ctx.from_env", "method", "ctx.Ctx")])
    feed.file(
        "b.py",
        "b",
        [sym("b.Builder", "class"), sym("b.make")],
        imports=[imp("werkzeug", "Base")],
        refs=[
            calls("b.Builder", "Base", "inherits"),
            calls("b.make", "Builder.from_env"),
            calls("b.make", "x.from_env"),
        ],
    )
    assert {d for s, d in edges(feed.graph, "calls") if s == "b.make"} == {"ctx.Ctx.from_env"}


def test_star_imports_of_submodules_not_folded_yet_cost_little_and_resolve_when_they_come(
    feed: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pkg/__init__.py`` star-imports eight submodules folded after it. A name looked up through
    ``pkg`` meanwhile used to climb back into ``pkg`` and through its eight stars again, five deep."""
    steps = []
    find = RepoIndex._find
    monkeypatch.setattr(RepoIndex, "_find", lambda self, *a: steps.append(1) or find(self, *a))
    feed.file("pkg/__init__.py", "pkg", [], imports=[imp(f"pkg.s{i}", "*") for i in range(8)])
    feed.file(
        "app.py", "app", [sym("app.run")], imports=[imp("pkg", "Widget")], refs=[calls("app.run", "Widget")]
    )
    assert not edges(feed.graph, "calls") and len(steps) < 50
    feed.file("pkg/s3.py", "pkg.s3", [sym("pkg.s3.Widget", "class")])
    assert edges(feed.graph, "calls") == {("app.run", "pkg.s3.Widget")}


def test_members_of_standard_library_objects_never_fall_back(feed: Feed) -> None:
    # `task.done()` on an asyncio Task once resolved to the repository's only method named `done`
    feed.file(
        "build.py",
        "build",
        [
            sym("build.Built", "class"),
            sym("build.Built.done", "method", "build.Built"),
            sym("build.Built.kill", "method", "build.Built"),
            sym("build.Built.exists", "method", "build.Built"),
            sym("build.Built.warning", "method", "build.Built"),
            sym("build.Built.finish_build", "method", "build.Built"),
        ],
    )
    feed.file(
        "live.py",
        "live",
        [sym("live.to_the_end")],
        refs=[
            calls("live.to_the_end", "task.done"),  # asyncio.Task
            calls("live.to_the_end", "process.kill"),  # subprocess.Popen
            calls("live.to_the_end", "cache_path.exists"),  # pathlib.Path
            calls("live.to_the_end", "log.warning"),  # logging.Logger
            calls("live.to_the_end", "built.finish_build"),
        ],
    )
    assert {d for s, d in edges(feed.graph, "calls") if s == "live.to_the_end"} == {
        "build.Built.finish_build"
    }
