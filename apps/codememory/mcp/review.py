"""``review_diff``: a change reviewed against the code graph, in one call to the gateway's ReviewDiff.

The gateway answers the whole review (``codememory.review``): the changed symbols (the innermost only:
a changed method, not its whole class), their dependents outside the diff (what may break), the risk
and its parts, the likely-missing changes, the memories linked to the changed code (decisions to
respect; suspect ones flagged) and the commits whose messages explain it. This module only finds the
diff (the work tree's when none is given) and writes the answer for an agent to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codememory.mcp.diffs import working_diff
from codememory.mcp.formatting import day, one_line
from codememory.mcp.registry import Tool, ToolContext, integer, text
from codememory.v1 import code_pb2 as cpb

__all__ = ["TOOLS", "review_diff"]


async def review_diff(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    repo = ctx.repo(args)
    source = args.get("diff") or await working_diff(ctx.settings.project, args.get("base", "HEAD"))
    request = cpb.ReviewDiffRequest(repo=repo, diff=source, max_missing=10)
    review: cpb.ReviewDiffResponse = await ctx.gateway.code("ReviewDiff", request)
    if not review.files:
        ctx.page.add("The diff is empty: nothing to review.")
        return
    ctx.page.add(f"Review of {len(review.files)} file(s) against the code graph of {repo}:")
    outside = [f"{f.path} ({f.status}, not in the graph)" for f in review.files if not f.indexed]
    if outside:
        ctx.page.add("not indexed: " + "; ".join(outside))
    _changed(ctx, review, args.get("max_symbols", 15))
    risk = review.risk
    parts = ", ".join(f"{p.name} {p.value:.2f}" for p in risk.parts)
    ctx.page.add(f"risk: {risk.level} ({risk.score:.2f}; {parts})")
    if review.missing:
        ctx.page.add("likely missing from this change:")
        for m in review.missing:
            symbol = f" `{m.symbol}`" if m.HasField("symbol") else ""
            ctx.page.add(f"- {m.path}{symbol} ({m.score:.2f}): {m.reason}")
    if review.memories:
        ctx.page.add("memories about this code (check the change against them):")
        for memory in review.memories[:8]:
            flag = f" (SUSPECT: {one_line(memory.suspect_reason, 160)})" if memory.suspect else ""
            ctx.page.add(f"- {memory.id} [{day(memory.created_at)}]{flag} {one_line(memory.text)}")
    if review.history:
        ctx.page.add("commits that explain this code:")
        for commit in review.history[:6]:
            subject = one_line(commit.subject, 120)
            ctx.page.add(f"- {commit.sha[:12]} {day(commit.authored_at)} {subject}: {commit.reason}")


def _changed(ctx: ToolContext, review: cpb.ReviewDiffResponse, limit: int) -> None:
    changed = list(review.changed)
    ctx.page.add(f"changed symbols ({len(changed)}):" if changed else "changed symbols: none recorded")
    users: dict[str, list[cpb.ReviewDependent]] = {}
    for d in review.dependents:
        if d.distance == 1:
            users.setdefault(d.via, []).append(d)
    for symbol in changed[:limit]:
        sign = "  (signature changed)" if symbol.signature_changed else ""
        where = f"{symbol.path}:{symbol.start_line}-{symbol.end_line}"
        ctx.page.add(f"- {symbol.kind} {symbol.qualname}  {where}  {one_line(symbol.signature, 160)}{sign}")
        others = users.get(symbol.qualname, [])
        if others:
            names = ", ".join(f"{d.name} ({d.edge})" for d in others[:8])
            more = f" +{len(others) - 8} more" if len(others) > 8 else ""
            ctx.page.add(f"  dependents outside the diff ({len(others)}): {names}{more}")
    if len(changed) > limit:
        ctx.page.add(f"… {len(changed) - limit} more changed symbols (max_symbols)")
    farther = sum(1 for d in review.dependents if d.distance > 1)
    if farther:
        ctx.page.add(f"transitive dependents (2 or more edges away): {farther}")


TOOLS = (
    Tool(
        "review_diff",
        "Review a change before you commit it: which recorded functions and classes it touches, their "
        "callers outside the diff (what may break), its risk, files that usually change with it but are "
        "missing, remembered decisions about that code and the commits that explain it. Without a diff it "
        "reviews the project's uncommitted changes (git diff against base).",
        {
            "diff": text("A unified diff (git diff output). Default: the work tree's changes."),
            "base": text(
                "The commit or ref to diff the work tree against when no diff is given.", default="HEAD"
            ),
            "max_symbols": integer("List at most this many changed symbols.", 15, 1, 100),
            "repo": text("Repository the diff belongs to (default: this project's)."),
        },
        review_diff,
    ),
)
