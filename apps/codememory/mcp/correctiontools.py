"""What consolidation concluded about a memory, and an agent's corrections: memory_history, supersede,
merge and unmerge, one RPC each.

A consolidation cycle marks a rule superseded when a later memory says it changed, and merges
memories that it can tell state the same thing; it misses what it cannot tell (a rule changed in
other words, paraphrases as far apart as two rules), and once in a while merges two rules that only
read alike. The agent that sees them in a recall is the one placed to say so, as a person does with
``codememory supersede``, ``merge`` and ``unmerge``. Each writes the event a cycle or a person would,
and ``memory_history`` shows what changed a memory, who did it and why (``codememory history``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from codememory.mcp.formatting import day, memory_line, one_line
from codememory.mcp.registry import Tool, ToolContext, strings, text
from codememory.v1 import consolidation_pb2 as cpb
from codememory.v1 import memory_pb2 as pb

_REASON = text("Why, in a few words, for the record (history shows it).")


async def supersede(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = pb.SupersedeRequest(
        memory_id=args["old_id"], superseded_by=args["new_id"], reason=args.get("reason", "")
    )
    written: pb.MutationResponse = await ctx.gateway.memory("Supersede", request)
    ctx.page.add(
        f"{args['old_id']} is superseded by {args['new_id']} (log seq {written.seq}): recall ranks the "
        "new one first and shows the old one only as history."
    )


async def _regroup(
    ctx: ToolContext, args: Mapping[str, Any], method: str, request_type: Any, said: Callable[[Any], str]
) -> None:
    """Merge or Unmerge (the same three fields each way), and what it did, in words."""
    request = request_type(
        canonical_id=args["canonical_id"], memory_ids=args["memory_ids"], reason=args.get("reason", "")
    )
    ctx.page.add(said(await ctx.gateway.consolidation(method, request)))


async def merge(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    await _regroup(
        ctx,
        args,
        "Merge",
        cpb.MergeRequest,
        lambda done: (
            f"Merged {len(done.memory_ids)} into {done.canonical_id} (log seq {done.seq}): they "
            "leave recall and stay its sources."
        ),
    )


async def unmerge(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    await _regroup(
        ctx,
        args,
        "Unmerge",
        cpb.UnmergeRequest,
        lambda done: (
            f"Took {len(done.memory_ids)} back out of {done.canonical_id} (log seq {done.seq}): "
            "each is its own memory in recall again, and later cycles keep it apart from that one."
        ),
    )


async def memory_history(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    response: pb.HistoryResponse = await ctx.gateway.memory(
        "History", pb.HistoryRequest(memory_id=args["memory_id"])
    )
    ctx.page.add(memory_line(response.memory))
    ctx.page.add(f"{len(response.entries)} change(s), oldest first (day, log seq, event, detail):")
    for entry in response.entries:
        detail = " ".join(f"{k}={one_line(v, 200)}" for k, v in sorted(entry.detail.items()))
        ctx.page.add(f"- {day(entry.at)} seq {entry.seq} {entry.event} {detail}".rstrip())
    if response.related:
        ctx.page.add("Memories it names (merged into or from, superseded by or superseding):")
        ctx.page.extend(memory_line(related) for related in response.related)


TOOLS = (
    Tool(
        "memory_history",
        "How a memory came to be: each change to it (refined, merged, superseded, archived, unmerged, "
        "with who or which cycle, why, and when) and the memories it names (what it was merged into "
        "or from, what superseded it or what it superseded). Use it on an id from recall before "
        "correcting what consolidation concluded, or to find an old rule's replacement.",
        {"memory_id": text("The memory's full id, as recall shows it.", minLength=1)},
        memory_history,
        required=("memory_id",),
    ),
    Tool(
        "supersede",
        "When recall returns a rule or decision together with a later memory that changed it (a new "
        "value, tool or name), mark the earlier one superseded by the later: recall then ranks the "
        "later one first and shows the earlier only as history, with its date. Both ids from recall.",
        {
            "old_id": text("The earlier, outdated memory's id.", minLength=1),
            "new_id": text("The later memory's id, which replaces it.", minLength=1),
            "reason": _REASON,
        },
        supersede,
        required=("old_id", "new_id"),
        read_only=False,
    ),
    Tool(
        "merge",
        "When recall returns several memories that state the same thing in other words, merge them "
        "into the best-worded one: the others leave recall and are kept as its sources (sessions, "
        "dates), so the fact takes one place. Not for memories that differ in a value or a detail "
        "that matters; use supersede when one replaced the other.",
        {
            "canonical_id": text("The memory to keep: the clearest, most complete wording.", minLength=1),
            "memory_ids": strings("The ids of the memories that restate it.", minItems=1),
            "reason": _REASON,
        },
        merge,
        required=("canonical_id", "memory_ids"),
        read_only=False,
    ),
    Tool(
        "unmerge",
        "Take a merge back when memory_history or recall shows memories merged into one that do not "
        "state the same thing (two rules that only read alike): each becomes its own memory in recall "
        "again, and later consolidation cycles keep it apart from that canonical memory.",
        {
            "canonical_id": text("The memory they were merged into.", minLength=1),
            "memory_ids": strings("The ids to take back out of it.", minItems=1),
            "reason": _REASON,
        },
        unmerge,
        required=("canonical_id", "memory_ids"),
        read_only=False,
    ),
)

__all__ = ["TOOLS"]
