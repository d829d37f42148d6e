"""Corrections an agent makes to what consolidation concluded: supersede and merge, one RPC each.

A consolidation cycle marks a rule superseded when a later memory says it changed, and merges
memories that it can tell state the same thing; it misses what it cannot tell (a rule changed in
other words, paraphrases as far apart as two rules). The agent that sees both in a recall is the one
placed to say so, as a person does with ``codememory supersede`` and ``merge``. Both write the event
a cycle would (``history`` shows who did it and why), and ``codememory unmerge`` takes a merge back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


async def merge(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = cpb.MergeRequest(
        canonical_id=args["canonical_id"], memory_ids=args["memory_ids"], reason=args.get("reason", "")
    )
    merged: cpb.MergeResponse = await ctx.gateway.consolidation("Merge", request)
    ctx.page.add(
        f"Merged {len(merged.memory_ids)} into {merged.canonical_id} (log seq {merged.seq}): they leave "
        "recall and stay its sources."
    )


TOOLS = (
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
)

__all__ = ["TOOLS"]
