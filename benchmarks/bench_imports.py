"""Import resolution recall and precision of the code graph, on repositories indexed as a user would.

Why: ``codememory graph dependents`` is only as good as the ``imports`` edges under it, and a project
with several package roots (``libs/``, ``services/<name>/``, ``src/``, a monorepo of packages) used to
get almost none: module names came from paths, which its imports never match.

Protocol, per repository:

1. The graph: every file of the work tree is indexed exactly as ``codememory index`` does it (roots
   discovered by ``codememory.code.discovery``, nothing configured by hand) and folded into a fresh
   ``CodeGraph``; with ``--stack`` the real CLI indexes into a running ``codememory up`` and the edges
   are read back over gRPC (``Neighbours``, ``imports``, out). Pairs = (importer file, imported file).
2. The truth, independent of the graph: Python's own ``ast`` lists every import of every ``.py`` file
   (any depth, relative ones resolved against the file's package), and each module is looked up the
   way the interpreter would, on a search path given per repository: the directories a developer's
   environment puts on ``sys.path`` (this repository: the lines of the editable install's ``.pth``;
   a ``src/`` project: ``src``; a monorepo: each package's ``src``), then the directory a script or
   test is run from, for files outside those (its first ancestor without ``__init__.py``: what
   ``python script.py`` and pytest's rootdir insertion add), and each ancestor holding a
   ``conftest.py`` (pytest inserts those too). ``from m import n`` is ``m.n`` when that is a
   module, else ``m``.
   Only targets inside the repository count.
3. Recall = truth pairs the graph has / truth pairs; precision = graph pairs (between ``.py`` files)
   that are true / graph pairs.

Usage: .venv/bin/python benchmarks/bench_imports.py [--stack] [--no-write]
           [--repo PATH --name NAME --sys-path DIR ...]  (default: this repository, click, OTel Python)
The other two are public repositories cloned read-only under /tmp (never committed here):
``git clone https://github.com/pallets/click /tmp/bench-click`` (a ``src/`` layout) and
``git clone https://github.com/open-telemetry/opentelemetry-python /tmp/bench-otel`` (29 packages).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from codememory.code.indexer import index_repository
from codememory.code.roots import SourceRoots
from codememory.code.walk import walk_repository
from codememory.codegraph import CodeGraph
from codememory.codegraph.model import FileNode
from codememory.events import SymbolsExtracted, new_envelope

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import write_section

HERE = Path(__file__).resolve().parent.parent
Pair = tuple[str, str]


@dataclass
class Layout:
    name: str
    root: Path
    sys_path: list[str]  # repo-relative directories on sys.path


def pth_roots(root: Path) -> list[str]:
    """The directories the editable install of this repository puts on ``sys.path`` (its .pth)."""
    site = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    out: list[str] = []
    for pth in sorted((site / "site-packages").glob("_*.pth")):
        for line in pth.read_text().splitlines():
            path = Path(line.strip())
            if line.strip() and path.is_absolute() and path.is_relative_to(root):
                out.append(path.relative_to(root).as_posix())
    return out


def package_srcs(root: Path) -> list[str]:
    """Every ``<package>/src`` beside a build file: what ``pip install -e`` of each package adds."""
    out = []
    for build in sorted(root.rglob("pyproject.toml")):
        src = build.parent / "src"
        if src.is_dir() and ".git" not in build.parts:
            out.append(src.relative_to(root).as_posix())
    return out


def defaults() -> list[Layout]:
    layouts = [Layout("codememory (this repository)", HERE, pth_roots(HERE))]
    if Path("/tmp/bench-click").is_dir():
        layouts.append(Layout("pallets/click (src/ layout)", Path("/tmp/bench-click"), ["src"]))
    if Path("/tmp/bench-otel").is_dir():
        otel = Path("/tmp/bench-otel")
        layouts.append(Layout("open-telemetry/opentelemetry-python (monorepo)", otel, package_srcs(otel)))
    return layouts


# --- the truth: ast and the interpreter's lookup ---------------------------------------------------


def truth_pairs(layout: Layout, py_files: set[str]) -> set[Pair]:
    pairs: set[Pair] = set()
    for path in sorted(py_files):
        try:
            tree = ast.parse((layout.root / path).read_bytes())
        except (SyntaxError, ValueError):
            continue
        installed = any(not d or path.startswith(d + "/") for d in layout.sys_path)
        script_dir = "" if installed else _script_dir(layout.root, path)
        conftests = [] if installed else _conftest_dirs(layout.root, script_dir)
        search = [*layout.sys_path, *([] if installed else [script_dir, *conftests])]
        package = _package(path, layout.sys_path, script_dir)
        for node in ast.walk(tree):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_find(a.name, search, py_files) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                    base = ".".join([*parts, *([base] if base else [])])
                for alias in node.names:
                    full = f"{base}.{alias.name}" if base else alias.name
                    targets.append(_find(full, search, py_files) or _find(base, search, py_files))
            pairs.update((path, t) for t in targets if t and t != path)
    return pairs


def _script_dir(root: Path, path: str) -> str:
    directory = Path(path).parent
    while directory != Path(".") and (root / directory / "__init__.py").is_file():
        directory = directory.parent
    return "" if directory == Path(".") else directory.as_posix()


def _conftest_dirs(root: Path, directory: str) -> list[str]:
    """Ancestors holding a ``conftest.py`` outside any package: pytest puts each on ``sys.path``."""
    out = []
    current = Path(directory)
    while True:
        if (root / current / "conftest.py").is_file() and not (root / current / "__init__.py").is_file():
            out.append("" if current == Path(".") else current.as_posix())
        if current == Path(".") or current == Path(""):
            return out
        current = current.parent


def _package(path: str, sys_path: list[str], script_dir: str) -> str:
    """The package ``path`` belongs to, named from the sys.path entry that holds it."""
    holders = [d for d in [*sys_path, script_dir] if not d or path.startswith(d + "/")]
    base = max(holders, key=len) if holders else ""
    rel = Path(path[len(base) :].lstrip("/"))
    parts = list(rel.parent.parts)
    return ".".join(parts)


def _find(module: str, search: list[str], py_files: set[str]) -> str | None:
    if not module:
        return None
    rel = module.replace(".", "/")
    for directory in search:
        prefix = f"{directory}/{rel}" if directory else rel
        for candidate in (f"{prefix}.py", f"{prefix}/__init__.py"):
            if candidate in py_files:
                return candidate
    return None


# --- the graph -------------------------------------------------------------------------------------


def index_and_fold(
    layout: Layout, roots: SourceRoots | None = None
) -> tuple[CodeGraph, list[SymbolsExtracted]]:
    """The repository indexed as ``codememory index`` does (roots discovered unless given), folded."""
    events = [
        e
        for e in index_repository(layout.root, layout.name, {}, workers=2, roots=roots)
        if isinstance(e, SymbolsExtracted)
    ]
    graph = CodeGraph("bench")
    at = datetime(2026, 11, 1, tzinfo=UTC)
    for seq, event in enumerate(events, 1):
        graph.apply(new_envelope(event, event_id=str(seq), tenant="bench", occurred_at=at), seq)
    return graph, events


def graph_pairs_in_process(
    layout: Layout, roots: SourceRoots | None = None
) -> tuple[set[Pair], dict[str, object]]:
    graph, events = index_and_fold(layout, roots)
    pairs = set()
    for src, dst, kind in graph.edges:
        a, b = graph.g[src], graph.g[dst]
        if kind == "imports" and isinstance(a, FileNode) and isinstance(b, FileNode):
            pairs.add((a.path, b.path))
    return pairs, {"files": len(events)}


def graph_pairs_over_stack(layout: Layout, py_files: set[str]) -> tuple[set[Pair], dict[str, object]]:
    from codememory.cli.client import connect
    from codememory.settings import default_home
    from codememory.v1 import code_pb2 as cpb

    cli = Path(sys.executable).parent / "codememory"
    done = subprocess.run([str(cli), "index", str(layout.root), "--json"], capture_output=True, check=True)
    report = json.loads(done.stdout)
    pairs = set()
    with connect(default_home()) as conn:
        for path in sorted(py_files):
            request = cpb.NeighboursRequest(
                repo=report["repo"], node=path, edge_kinds=["imports"], depth=1, direction="out"
            )
            response = conn.code.Neighbours(request, metadata=conn.metadata, timeout=conn.timeout)
            pairs.update((path, n.key) for n in response.nodes if n.kind == "file" and n.key != path)
    return pairs, {"files": report["files_seen"], "seconds": report["seconds"]}


# --- report ----------------------------------------------------------------------------------------


def measure(layout: Layout, stack: bool) -> dict[str, object]:
    py_files = {f.path for f in walk_repository(layout.root) if f.path.endswith(".py")}
    truth = truth_pairs(layout, py_files)
    if stack:
        found, extra = graph_pairs_over_stack(layout, py_files)
    else:
        found, extra = graph_pairs_in_process(layout)
    found = {(a, b) for a, b in found if a in py_files and b in py_files}
    before, _ = graph_pairs_in_process(layout, SourceRoots())  # module names from paths, as before
    before = {(a, b) for a, b in before if a in py_files and b in py_files}
    hit = truth & found
    missed, wrong = sorted(truth - found), sorted(found - truth)
    row: dict[str, object] = {
        "name": layout.name,
        "py_files": len(py_files),
        "truth": len(truth),
        "graph": len(found),
        "recall": len(hit) / len(truth) if truth else 1.0,
        "precision": len(hit) / len(found) if found else 1.0,
        "recall_paths": len(truth & before) / len(truth) if truth else 1.0,
        "precision_paths": len(truth & before) / len(before) if before else "n/a (no edges)",
        "missed": missed[:8],
        "wrong": wrong[:8],
        **extra,
    }
    return row


def table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| repository | .py files | true pairs (ast) | graph pairs | recall | precision "
        "| path names only: recall | precision |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['py_files']} | {r['truth']} | {r['graph']} "
            f"| {_pct(r['recall'])} | {_pct(r['precision'])} "
            f"| {_pct(r['recall_paths'])} | {_pct(r['precision_paths'])} |"
        )
    return "\n".join(lines)


def _pct(value: object) -> str:
    return f"{float(value):.1%}" if isinstance(value, float | int) else str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--name", default="")
    parser.add_argument("--sys-path", nargs="*", default=[])
    parser.add_argument("--stack", action="store_true", help="index with the CLI into a running stack")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    layouts = (
        [Layout(args.name or args.repo.name, args.repo.resolve(), args.sys_path)] if args.repo else defaults()
    )
    rows = [measure(layout, args.stack) for layout in layouts]
    for row in rows:
        print(f"{row['name']}: missed {row['missed']}\n  wrong {row['wrong']}", file=sys.stderr)
    body = table(rows)
    print(body)
    if args.no_write:
        return
    how = "the real CLI into `codememory up`, edges read over gRPC" if args.stack else "in process"
    write_section(
        "imports-stack" if args.stack else "imports",
        "Code graph: import resolution across package roots" + (", over the stack" if args.stack else ""),
        "Importer->imported file pairs of `.py` files: what Python's `ast` and the interpreter's lookup "
        "(the repository's `sys.path`: editable-install `.pth`, `src`, each package's `src`, and the "
        "script's own directory) find, against the graph's `imports` edges after indexing with "
        f"discovered roots ({how}). Targets: recall >= 95%, precision >= 98% on each. The last two "
        "columns index the same files with module names taken from paths (what the graph did "
        "before roots were discovered).\n\n"
        + body
        + "\n\nRoots are declared (pyproject/setup.cfg/tsconfig/go.mod/Cargo.toml) or inferred from the "
        "project's own imports (`codememory.code.discovery`); nothing is configured per repository. "
        f"Commits measured: {', '.join(_head(layout.root) for layout in layouts)}.",
    )


def _head(root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return f"{root.name}@{done.stdout.strip()}"


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
