"""Memory tools: recall, remember, refine, forget, session_context; one gateway RPC each.

The descriptions are written for the agent that reads them in its tool list: when to call the tool,
what comes back, and which ids to pass on. ``remember`` scopes a memory to the served project's
repository and branch unless told otherwise, as the hooks do, so what an agent remembers is found
again by the next session in the same project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codememory.mcp.formatting import count, memory_line
from codememory.mcp.registry import Tool, ToolContext, integer, strings, text
from codememory.v1 import memory_pb2 as pb

_REPO = text("Only memories of this repository (default: every repository).")
_WRAPPER = {"<codememory-context>", "</codememory-context>"}  # the hook's markers; a tool result needs none
_ID = text("The memory's full id, as shown first on its line by recall.", minLength=1)


async def recall(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = pb.RecallRequest(
        query=args["query"],
        limit=args.get("limit", 8),
        repo=args.get("repo", ""),
        types=args.get("types", []),
        paths=args.get("paths", []),
        working_set=args.get("working_set", []),
        include_deprecated=args.get("include_deprecated", False),
        include_history=args.get("include_history", False),
        cwd=str(ctx.settings.project),
    )
    response: pb.RecallResponse = await ctx.gateway.memory("Recall", request)
    if not response.hits:
        ctx.page.add(f"No memories match {args['query']!r}.")
        return
    found = count(len(response.hits), "memory", "memories")
    ctx.page.add(f"{found}, best first (id [type, day, repo, score] text):")
    for hit in response.hits:
        ctx.page.add(memory_line(hit.memory, hit.score.total, hit.suspect))


async def remember(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = pb.StoreRequest(
        text=args["text"],
        type=args.get("type", "note"),
        tags=args.get("tags", []),
        scope=pb.Scope(
            repo=args.get("repo") or ctx.settings.repo,
            branch=args.get("branch", ctx.settings.branch),
            paths=args.get("paths", []),
        ),
    )
    if "importance" in args:
        request.importance = args["importance"]
    written: pb.MutationResponse = await ctx.gateway.memory("Store", request)
    ctx.page.add(f"Remembered {written.memory_id} (log seq {written.seq}); recall finds it within a second.")


async def refine(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = pb.RefineRequest(
        memory_id=args["memory_id"],
        text=args.get("text", ""),
        tags=args.get("tags", []),
        replace_tags="tags" in args,
    )
    if "importance" in args:
        request.importance = args["importance"]
    written: pb.MutationResponse = await ctx.gateway.memory("Refine", request)
    ctx.page.add(f"Refined {written.memory_id} (log seq {written.seq}).")


async def forget(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    memory_id, reason = args["memory_id"], args.get("reason", "")
    if args.get("deprecate_only"):
        kept: pb.MutationResponse = await ctx.gateway.memory(
            "Deprecate", pb.DeprecateRequest(memory_id=memory_id, reason=reason)
        )
        ctx.page.add(f"Deprecated {kept.memory_id} (log seq {kept.seq}): recall leaves it out by default.")
        return
    gone: pb.MutationResponse = await ctx.gateway.memory(
        "Forget", pb.ForgetRequest(memory_id=memory_id, reason=reason)
    )
    ctx.page.add(f"Forgot {gone.memory_id} (log seq {gone.seq}).")


async def session_context(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    request = pb.SessionContextRequest(
        repo=args.get("repo") or ctx.settings.repo,
        branch=ctx.settings.branch,
        cwd=str(ctx.settings.project),
        prompt=args.get("prompt", ""),
        budget_tokens=max(50, ctx.page.budget - 60),  # room for the header and the ids line
    )
    response: pb.SessionContextResponse = await ctx.gateway.memory("SessionContext", request)
    if not response.context.strip():
        ctx.page.add("Nothing remembered for this project yet.")
        return
    ctx.page.add(f"What codememory knows for this project ({response.tokens} tokens):")
    ctx.page.extend(line for line in response.context.splitlines() if line.strip() not in _WRAPPER)
    if response.memory_ids:
        ctx.page.add("memory ids: " + " ".join(response.memory_ids))


TOOLS = (
    Tool(
        "recall",
        "Search your long-term memory of this and earlier sessions: decisions, conventions, fixes, "
        "what the user said, what failed before. Call it before changing code you have not touched in "
        "this session, or when the user refers to something earlier. Returns one memory per line, "
        "best first: its id (for refine/forget), type, day, repository, score, and text; a memory "
        "marked SUSPECT was written before its code changed, one marked superseded was replaced by the "
        "memory it names (history, ranked below it).",
        {
            "query": text("What you want to know, in words (e.g. 'how do we validate tokens').", minLength=1),
            "limit": integer("How many memories at most.", 8, 1, 50),
            "repo": _REPO,
            "types": strings("Only these memory types (e.g. decision, note, fix, prompt, summary)."),
            "paths": strings("Only memories linked to these repository-relative paths."),
            "working_set": strings(
                "Files (repository-relative) or symbols (qualified names) you are working on: "
                "memories about nearby code rank higher."
            ),
            "include_deprecated": {
                "type": "boolean",
                "default": False,
                "description": "Also return deprecated memories.",
            },
            "include_history": {
                "type": "boolean",
                "default": False,
                "description": "Also return what consolidation took out of recall: restatements merged "
                "into a canonical memory, archived and deprecated memories (each marked).",
            },
        },
        recall,
        required=("query",),
    ),
    Tool(
        "remember",
        "Store something worth knowing in a later session: a decision and why, a convention, a fix "
        "and its cause, a user preference. Write one self-contained fact (it is read without this "
        "conversation). Scoped to this project's repository and branch. Returns the new memory's id.",
        {
            "text": text("The fact, self-contained, one to five sentences.", minLength=1, maxLength=16000),
            "type": text("decision, convention, fix, preference, note (default), todo …", default="note"),
            "tags": strings("Free-form tags."),
            "paths": strings("Repository-relative files the memory is about."),
            "importance": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "0..1, default 0.5; 0.8+ for rules that must not be broken.",
            },
            "repo": text("Repository (default: this project's)."),
            "branch": text("Branch (default: the project's current branch; '' for every branch)."),
        },
        remember,
        required=("text",),
        read_only=False,
    ),
    Tool(
        "refine",
        "Correct or update a memory you found with recall: new text, importance or tags (tags given "
        "replace the old ones). Prefer this to storing a second, conflicting memory.",
        {
            "memory_id": _ID,
            "text": text("The corrected text (omit to keep it).", maxLength=16000),
            "importance": {"type": "number", "minimum": 0, "maximum": 1, "description": "New importance."},
            "tags": strings("New tags, replacing the old ones."),
        },
        refine,
        required=("memory_id",),
        read_only=False,
    ),
    Tool(
        "forget",
        "Remove a memory that is wrong or must not be kept (it leaves recall at once). With "
        "deprecate_only, keep it but mark it outdated: recall then skips it unless asked.",
        {
            "memory_id": _ID,
            "reason": text("Why, for the record."),
            "deprecate_only": {
                "type": "boolean",
                "default": False,
                "description": "Mark outdated instead of forgetting.",
            },
        },
        forget,
        required=("memory_id",),
        read_only=False,
        destructive=True,
    ),
    Tool(
        "session_context",
        "What codememory would tell you at the start of a session in this project: the most useful "
        "decisions, conventions and recent work, packed into the token budget. Call it once when you "
        "start a task if your context has none, optionally with the task as prompt.",
        {
            "prompt": text("The task or question at hand, to focus the context (optional)."),
            "repo": text("Repository (default: this project's)."),
        },
        session_context,
    ),
)

__all__ = ["TOOLS"]
