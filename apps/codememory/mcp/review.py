"""``review_diff``: what a diff touches in the code graph, who depends on it, and what memory says.

The gateway has no ReviewDiff RPC yet, so the review is composed here from the RPCs that exist:
``Neighbours`` (the symbols a changed file contains, with their recorded lines), the diff's line
ranges (``diffs``) to pick the changed symbols (the innermost only: a changed method, not its whole
class), ``Dependents`` of each (callers the diff did not touch are what may break), and ``Recall``: the
memories linked to the changed files, and those ranked closest to the changed files and symbols as a
working set (decisions about this code, and memories the change makes suspect). When a ReviewDiff RPC
lands, this module becomes one call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from codememory.mcp.diffs import FileDiff, check_size, parse_diff, working_diff
from codememory.mcp.errors import NotFoundError
from codememory.mcp.formatting import memory_line, node_line
from codememory.mcp.registry import Tool, ToolContext, integer, text
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import memory_pb2 as pb

_CONTAINED_DEPTH = 10  # files contain classes contain methods contain closures …


async def _symbols_of(ctx: ToolContext, repo: str, path: str) -> list[cpb.GraphNode] | None:
    """The symbols the graph records in ``path``; None when the file is not in the graph."""
    request = cpb.NeighboursRequest(
        repo=repo, node=path, edge_kinds=["contains"], depth=_CONTAINED_DEPTH, direction="out"
    )
    try:
        response: cpb.GraphNodesResponse = await ctx.gateway.code("Neighbours", request)
    except NotFoundError:
        return None
    return [n for n in response.nodes if n.kind == "symbol" and n.symbol_kind != "module"]


def changed_symbols(change: FileDiff, symbols: list[cpb.GraphNode]) -> list[cpb.GraphNode]:
    """The innermost symbols whose recorded lines a change touches (all of them for a deleted file)."""
    hit = [s for s in symbols if change.status == "deleted" or change.touches(s.start_line, s.end_line)]

    def encloses(outer: cpb.GraphNode, inner: cpb.GraphNode) -> bool:
        inside = outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
        return outer is not inner and inside

    innermost = [s for s in hit if not any(encloses(s, other) for other in hit)]
    return sorted(innermost, key=lambda s: (s.path, s.start_line))


async def _dependents(ctx: ToolContext, repo: str, symbol: str) -> list[cpb.GraphNode]:
    try:
        response: cpb.GraphNodesResponse = await ctx.gateway.code(
            "Dependents", cpb.DependentsRequest(repo=repo, node=symbol)
        )
    except NotFoundError:
        return []
    return list(response.nodes)


async def review_diff(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    repo = ctx.repo(args)
    source = args.get("diff") or await working_diff(ctx.settings.project, args.get("base", "HEAD"))
    files = parse_diff(check_size(source))
    if not files:
        ctx.page.add("The diff is empty: nothing to review.")
        return
    found = await asyncio.gather(*(_symbols_of(ctx, repo, f.path) for f in files if f.status != "added"))
    known = dict(zip([f.path for f in files if f.status != "added"], found, strict=True))
    changed = [s for f in files for s in changed_symbols(f, known.get(f.path) or [])]
    limit = args.get("max_symbols", 15)
    users = await asyncio.gather(*(_dependents(ctx, repo, s.qualname) for s in changed[:limit]))
    touched = {s.qualname for s in changed}

    ctx.page.add(f"Review of {len(files)} file(s) against the code graph of {repo}:")
    outside = [f"{f.new_path} ({f.status}, not in the graph)" for f in files if known.get(f.path) is None]
    if outside:
        ctx.page.add("not indexed: " + "; ".join(outside))
    ctx.page.add(f"changed symbols ({len(changed)}):" if changed else "changed symbols: none recorded")
    for symbol, deps in zip(changed, users, strict=False):
        symbol.ClearField("via")  # found through "contains": how it was found is no news here
        ctx.page.add(node_line(symbol))
        others = [d for d in deps if d.qualname not in touched and d.key != symbol.key]
        if others:
            names = ", ".join(f"{d.qualname or d.path} ({d.via})" for d in others[:8])
            more = f" +{len(others) - 8} more" if len(others) > 8 else ""
            ctx.page.add(f"  dependents outside the diff ({len(others)}): {names}{more}")
    if len(changed) > limit:
        ctx.page.add(f"… {len(changed) - limit} more changed symbols without dependents (max_symbols)")
    await _memories(ctx, files, changed)


async def _memories(ctx: ToolContext, files: list[FileDiff], changed: list[cpb.GraphNode]) -> None:
    """Memories about the changed code: the decisions to respect, and the ones the change may break.

    Two recalls: the memories linked to the changed files (a filter, so they come back however little
    their words resemble the names), then the ones ranked closest to the changed files and symbols.
    """
    paths = list(dict.fromkeys(p for f in files for p in (f.path, f.new_path)))[:100]
    working = [f.new_path for f in files] + [s.qualname for s in changed]
    names = " ".join(dict.fromkeys([s.name for s in changed] + [f.new_path for f in files]))
    by_paths = pb.RecallRequest(query=names[:2000], limit=5, cwd=str(ctx.settings.project), paths=paths)
    by_closeness = pb.RecallRequest()
    by_closeness.CopyFrom(by_paths)
    by_closeness.ClearField("paths")
    by_closeness.working_set.extend(working[:200])
    linked, near = await asyncio.gather(
        ctx.gateway.memory("Recall", by_paths), ctx.gateway.memory("Recall", by_closeness)
    )
    hits = {hit.memory.id: hit for hit in [*linked.hits, *near.hits]}
    if hits:
        ctx.page.add("memories about this code (check the change against them):")
        for hit in list(hits.values())[:8]:
            ctx.page.add(memory_line(hit.memory, hit.score.total, hit.suspect))


TOOLS = (
    Tool(
        "review_diff",
        "Review a change before you commit it: which recorded functions and classes it touches, their "
        "callers outside the diff (what may break), and remembered decisions about that code. Without "
        "a diff it reviews the project's uncommitted changes (git diff against base).",
        {
            "diff": text("A unified diff (git diff output). Default: the work tree's changes."),
            "base": text(
                "The commit or ref to diff the work tree against when no diff is given.", default="HEAD"
            ),
            "max_symbols": integer("Look up dependents of at most this many changed symbols.", 15, 1, 100),
            "repo": text("Repository the diff belongs to (default: this project's)."),
        },
        review_diff,
    ),
)

__all__ = ["TOOLS", "changed_symbols"]
