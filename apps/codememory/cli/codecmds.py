"""The code commands: ``index``, ``record-commit``, ``search-code`` and the ``graph`` queries.

Indexing runs here, on the machine that has the code, and streams facts to the gateway; queries are
plain calls to the gateway's CodeService. Heavy imports (tree-sitter, git reading) happen inside the
commands that need them, so the rest of the CLI starts fast.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import grpc
import typer

from codememory.cli.client import Connection, connect, fail
from codememory.cli.render import Json, as_dict, console, nodes_table, print_json
from codememory.runtime.home import NotRunningError
from codememory.settings import default_home
from codememory.v1 import code_pb2 as cpb

Repo = Annotated[str, typer.Option(help="Repository name (default: the work tree of the current directory)")]
graph_app = typer.Typer(
    no_args_is_help=True, help="Query the code graph: symbols, dependents, paths, history."
)


def _with_conn(work: Callable[[Connection], Any]) -> Any:
    try:
        with connect(default_home()) as conn:
            return work(conn)
    except NotRunningError as exc:
        fail(str(exc))
    except grpc.RpcError as exc:
        fail(f"{exc.code().name}: {exc.details()}")


def _indexing(work: Callable[[Connection], Any]) -> None:
    """``_with_conn`` for the commands that parse code: a path or walk failure is one clear line."""
    from codememory.cli.recording import FactStreamError, NotAWorkTreeError
    from codememory.code import IndexingError  # tree-sitter: only for the commands that parse
    from codememory.githistory import GitHistoryError

    try:
        _with_conn(work)
    except (IndexingError, NotAWorkTreeError, GitHistoryError) as exc:
        fail(str(exc))
    except FactStreamError as exc:
        fail(f"nothing recorded: reading the facts failed: {exc}")


def _repo(repo: str) -> str:
    if repo:
        return repo
    from codememory.cli.recording import repository_of

    return repository_of(Path("."))[0]


def index_cmd(
    path: Annotated[Path, typer.Argument(help="A directory (a git work tree or any folder)")] = Path("."),
    history: Annotated[bool, typer.Option("--history", help="Also record the git history")] = False,
    repo: Repo = "",
    workers: int = 2,
    json_out: Json = False,
) -> None:
    """Parse a repository's files into symbols and edges (unchanged files are skipped)."""
    from codememory.cli.indexing import index_repository_into

    _indexing(
        lambda conn: index_repository_into(
            conn, path, repo, history=history, workers=workers, json_out=json_out
        )
    )


def record_commit_cmd(
    path: Annotated[Path, typer.Argument(help="The work tree")] = Path("."),
    repo: Repo = "",
) -> None:
    """Record the HEAD commit and the symbols of the files it changed (run by the post-commit hook)."""
    from codememory.cli.indexing import record_head_commit

    _indexing(lambda conn: record_head_commit(conn, path, repo))


def search_code_cmd(
    query: str,
    limit: int = 10,
    repo: str = "",
    path_prefix: str = "",
    json_out: Json = False,
) -> None:
    """Symbols ranked for a query (hybrid: MiniLM dense + BM25 over code-aware terms)."""
    request = cpb.SearchCodeRequest(query=query, limit=limit, repo=repo, path_prefix=path_prefix)
    response = as_dict(
        _with_conn(lambda conn: conn.code.SearchCode(request, metadata=conn.metadata, timeout=conn.timeout))
    )
    if json_out:
        print_json(response)
        return
    for hit in response["hits"]:
        where = f"{hit['path']}:{hit['start_line']}"
        typer.echo(f"{float(hit['score']):.3f}  {hit['qualname']}  {where}  {hit['signature']}")


def _query(method: str, request: Any) -> dict[str, Any]:
    return as_dict(
        _with_conn(
            lambda conn: getattr(conn.code, method)(request, metadata=conn.metadata, timeout=conn.timeout)
        )
    )


def _show(response: dict[str, Any], json_out: bool) -> None:
    if json_out:
        print_json(response)
    elif "nodes" in response:
        console.print(nodes_table(response["nodes"]))
    else:
        print_json(response)


@graph_app.command("symbol")
def symbol_cmd(symbol: str, repo: Repo = "", json_out: Json = False) -> None:
    """A symbol: where it is, its signature, callers, callees, children, centrality."""
    _show(_query("SymbolInfo", cpb.SymbolInfoRequest(repo=_repo(repo), symbol=symbol)), json_out)


@graph_app.command("neighbours")
def neighbours_cmd(
    node: str,
    edge: Annotated[list[str] | None, typer.Option("--edge", help="Edge kind (repeatable)")] = None,
    depth: int = 1,
    direction: str = "both",
    repo: Repo = "",
    json_out: Json = False,
) -> None:
    """Files or symbols reached from NODE over the given edge kinds, up to DEPTH."""
    request = cpb.NeighboursRequest(
        repo=_repo(repo), node=node, edge_kinds=edge or [], depth=depth, direction=direction
    )
    _show(_query("Neighbours", request), json_out)


@graph_app.command("dependents")
def dependents_cmd(node: str, transitive: bool = False, repo: Repo = "", json_out: Json = False) -> None:
    """Who calls, imports or inherits NODE (directly, or transitively)."""
    _show(
        _query("Dependents", cpb.DependentsRequest(repo=_repo(repo), node=node, transitive=transitive)),
        json_out,
    )


@graph_app.command("path")
def path_cmd(source: str, target: str, repo: Repo = "", json_out: Json = False) -> None:
    """A shortest path between two symbols or files."""
    _show(
        _query("PathBetween", cpb.PathBetweenRequest(repo=_repo(repo), source=source, target=target)),
        json_out,
    )


@graph_app.command("changed")
def changed_cmd(
    start: str = "",
    end: str = "",
    since: float = 0.0,
    until: float = 0.0,
    repo: Repo = "",
    json_out: Json = False,
) -> None:
    """Commits, files and symbols changed between two commits (--start/--end) or times (--since/--until)."""
    request = cpb.ChangedBetweenRequest(
        repo=_repo(repo), start_commit=start, end_commit=end, start_time=since, end_time=until
    )
    _show(_query("ChangedBetween", request), json_out)


@graph_app.command("as-of")
def as_of_cmd(
    commit: str = "",
    time: float = 0.0,
    node: Annotated[list[str] | None, typer.Option("--node", help="Does it exist then? (repeatable)")] = None,
    repo: Repo = "",
    json_out: Json = False,
) -> None:
    """The graph as it was at a commit or time: sizes, and whether given files or symbols existed."""
    request = cpb.GraphAsOfRequest(repo=_repo(repo), commit=commit, time=time, nodes=node or [])
    _show(_query("GraphAsOf", request), json_out)


@graph_app.command("history")
def history_cmd(symbol: str, repo: Repo = "", json_out: Json = False) -> None:
    """The commits that changed a symbol."""
    _show(_query("SymbolHistory", cpb.SymbolInfoRequest(repo=_repo(repo), symbol=symbol)), json_out)


@graph_app.command("stale")
def stale_cmd(days: int = 90, limit: int = 20, repo: Repo = "", json_out: Json = False) -> None:
    """Central files nobody has changed for DAYS days."""
    _show(
        _query("StaleCentralFiles", cpb.StaleCentralFilesRequest(repo=_repo(repo), days=days, limit=limit)),
        json_out,
    )


@graph_app.command("cochange")
def cochange_cmd(path: str, limit: int = 10, repo: Repo = "", json_out: Json = False) -> None:
    """Files that change together with PATH."""
    _show(_query("CoChanged", cpb.CoChangedRequest(repo=_repo(repo), path=path, limit=limit)), json_out)


def register(app: typer.Typer) -> None:
    app.command("index")(index_cmd)
    app.command("record-commit")(record_commit_cmd)
    app.command("search-code")(search_code_cmd)
    app.add_typer(graph_app, name="graph")


__all__ = ["register"]
