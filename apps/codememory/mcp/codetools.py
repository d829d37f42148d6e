"""Code tools over the gateway's CodeService: search, a symbol, its dependents, history, co-change.

They answer from the code graph the gateway folds from LOG (what ``codememory index`` and the hooks
recorded), so they default to the served project's repository and speak in repository-relative paths
and qualified names, the same names every other code tool accepts back.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from codememory.mcp.errors import InvalidArgumentError
from codememory.mcp.formatting import code_hit_line, commit_line, names, node_line, one_line
from codememory.mcp.registry import Tool, ToolContext, integer, text
from codememory.v1 import code_pb2 as cpb

_REPO = text("Repository name (default: this project's).")
_SYMBOL = text("A qualified name (pkg.mod.Class.method), or a bare name when it is unique.", minLength=1)


async def search_code(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    repo = "" if args.get("repo") == "*" else ctx.repo(args)
    request = cpb.SearchCodeRequest(
        query=args["query"], limit=args.get("limit", 10), repo=repo, path_prefix=args.get("path_prefix", "")
    )
    response: cpb.SearchCodeResponse = await ctx.gateway.code("SearchCode", request)
    if not response.hits:
        ctx.page.add(f"No symbols match {args['query']!r} in {repo or 'any repository'} (is it indexed?).")
        return
    ctx.page.add(f"{len(response.hits)} symbols, best first (score kind qualname path:lines signature):")
    for hit in response.hits:
        ctx.page.add(code_hit_line(hit))


async def symbol_info(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = cpb.SymbolInfoRequest(repo=ctx.repo(args), symbol=args["symbol"])
    info: cpb.SymbolInfoResponse = await ctx.gateway.code("SymbolInfo", request)
    ctx.page.add(node_line(info.symbol).removeprefix("- "))
    if info.symbol.docstring:
        ctx.page.add(f"  doc: {one_line(info.symbol.docstring, 300)}")
    ctx.page.add(f"  centrality: pagerank {info.symbol.pagerank:.4f}, betweenness {info.betweenness:.4f}")
    for title, nodes in (("callers", info.callers), ("callees", info.callees), ("children", info.children)):
        ctx.page.add(f"{title} ({len(nodes)}):" if nodes else f"{title}: none")
        for node in nodes:
            ctx.page.add(node_line(node))


async def dependents(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    transitive = args.get("transitive", False)
    request = cpb.DependentsRequest(repo=ctx.repo(args), node=args["node"], transitive=transitive)
    response: cpb.GraphNodesResponse = await ctx.gateway.code("Dependents", request)
    nodes = list(response.nodes)[: args.get("limit", 50)]
    if not nodes:
        ctx.page.add(f"Nothing in the graph depends on {args['node']}.")
        return
    more = " (the gateway cut the list at its cap)" if response.truncated else ""
    kind = "transitive" if transitive else "direct"
    ctx.page.add(f"{len(response.nodes)} {kind} dependents of {args['node']}, nearest first{more}:")
    for node in nodes:
        ctx.page.add(node_line(node))


def _seconds(value: str, name: str) -> float:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidArgumentError(f"{name} must be an ISO-8601 date or time, got {value!r}") from exc
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


async def what_changed(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = cpb.ChangedBetweenRequest(
        repo=ctx.repo(args), start_commit=args.get("start_commit", ""), end_commit=args.get("end_commit", "")
    )
    if not request.start_commit and not request.end_commit:
        if "since" in args:
            request.start_time = _seconds(args["since"], "since")
        else:
            request.start_time = time.time() - 86400 * args.get("days", 7)
        request.end_time = _seconds(args["until"], "until") if "until" in args else time.time()
    response: cpb.ChangedBetweenResponse = await ctx.gateway.code("ChangedBetween", request)
    if not response.commits:
        ctx.page.add("No recorded commits in that range (record history with `codememory index --history`).")
        return
    counts = (len(response.commits), len(response.files), len(response.symbols))
    ctx.page.add("{} commits, {} files, {} symbols changed.".format(*counts))
    ctx.page.add("symbols: " + (names(response.symbols, 60) if response.symbols else "none recorded"))
    ctx.page.add("commits (oldest first):")
    for commit in response.commits:
        ctx.page.add(commit_line(commit))


async def symbol_history(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = cpb.SymbolInfoRequest(repo=ctx.repo(args), symbol=args["symbol"])
    response: cpb.SymbolHistoryResponse = await ctx.gateway.code("SymbolHistory", request)
    ctx.page.add(node_line(response.symbol).removeprefix("- "))
    if not response.changes:
        ctx.page.add("No recorded commit changed it (record history with `codememory index --history`).")
        return
    ctx.page.add(f"{len(response.changes)} commits changed it:")
    for commit in response.changes:
        ctx.page.add(commit_line(commit, max_names=4))


async def cochanged(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = cpb.CoChangedRequest(repo=ctx.repo(args), path=args["path"], limit=args.get("limit", 10))
    response: cpb.GraphNodesResponse = await ctx.gateway.code("CoChanged", request)
    if not response.nodes:
        ctx.page.add(f"No file changes together with {args['path']} in the recorded history.")
        return
    ctx.page.add(f"Files that change with {args['path']} (score: share of its commits):")
    for node in response.nodes:
        ctx.page.add(node_line(node))


TOOLS = (
    Tool(
        "search_code",
        "Find functions, classes and methods by what they do, in words or code terms (hybrid semantic "
        "+ keyword search over the indexed repository). Returns score, kind, qualified name, "
        "path:lines, signature and first doc line; pass a qualified name on to symbol_info or dependents.",
        {
            "query": text("What the code does, e.g. 'parse a date from a header'.", minLength=1),
            "limit": integer("How many symbols at most.", 10, 1, 50),
            "repo": text("Repository (default: this project's; '*' for every indexed repository)."),
            "path_prefix": text("Only symbols under this repository-relative directory or file."),
        },
        search_code,
        required=("query",),
    ),
    Tool(
        "symbol_info",
        "One symbol: where it is, its signature and docstring, centrality, who calls it, what it calls, "
        "and what it contains. Use before changing a function to see its callers.",
        {"symbol": _SYMBOL, "repo": _REPO},
        symbol_info,
        required=("symbol",),
    ),
    Tool(
        "dependents",
        "Who calls, imports, inherits or references a symbol or file (for a file: any symbol in it): what "
        "may break when you change it. transitive follows dependents of dependents (up to 10 hops).",
        {
            "node": text("A qualified symbol name or a repository-relative path.", minLength=1),
            "transitive": {"type": "boolean", "default": False, "description": "Follow the chain."},
            "limit": integer("How many dependents to list at most.", 50, 1, 1000),
            "repo": _REPO,
        },
        dependents,
        required=("node",),
    ),
    Tool(
        "what_changed",
        "Commits, files and symbols changed between two commits, or in a time range (default: the last "
        "7 days), from the recorded git history. Use it to catch up on a codebase.",
        {
            "start_commit": text("Older commit sha (exclusive)."),
            "end_commit": text("Newer commit sha (inclusive)."),
            "since": text("Start time, ISO-8601 (e.g. 2026-03-01 or 2026-03-01T12:00:00Z)."),
            "until": text("End time, ISO-8601 (default: now)."),
            "days": integer("The last N days, when no commit or since is given.", 7, 1, 3650),
            "repo": _REPO,
        },
        what_changed,
    ),
    Tool(
        "symbol_history",
        "The commits that changed a symbol, oldest first (sha, day, author, message): why it looks the "
        "way it does.",
        {"symbol": _SYMBOL, "repo": _REPO},
        symbol_history,
        required=("symbol",),
    ),
    Tool(
        "cochanged",
        "Files that usually change in the same commits as a file, from the git history: what else you "
        "probably need to edit or test.",
        {
            "path": text("A repository-relative file path.", minLength=1),
            "limit": integer("How many files at most.", 10, 1, 100),
            "repo": _REPO,
        },
        cochanged,
        required=("path",),
    ),
)

__all__ = ["TOOLS"]
