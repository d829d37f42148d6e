"""Consolidation from the command line: run a cycle now, supersede, merge or unmerge by hand, and a
memory's history.

``consolidate`` waits until the cycle's events are projected, so a recall right after it already
ranks the current rule first. ``history`` shows what changed a memory (merges, supersession, refines)
and the memories it is linked to, newest change last.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from codememory.cli.client import call, call_service
from codememory.cli.render import as_dict, console, print_json
from codememory.v1 import consolidation_pb2 as cpb
from codememory.v1 import consolidation_pb2_grpc as cpb_grpc
from codememory.v1 import memory_pb2 as pb

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _day(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M") if seconds else "-"


def consolidate_cmd(json_out: Json = False) -> None:
    """Run one consolidation cycle now and wait until its results are recallable."""
    response = as_dict(call("Consolidate", pb.ConsolidateRequest(), timeout=180.0))
    if json_out:
        print_json(response)
        return
    counts = ("merged", "superseded", "archived", "decayed", "insights", "summaries", "linked")
    done = ", ".join(f"{response.get(k, 0)} {k}" for k in counts)
    typer.echo(
        f"cycle {response.get('cycle_id', '')[:8]} up to log seq {response.get('up_to_seq', 0)}: {done}"
    )
    waiting = int(response.get("without_vectors", 0))
    if waiting:  # e.g. right after indexing a large repository: their vectors are still being made
        typer.echo(
            f"{waiting} memories had no vector yet and were left out; a later cycle takes them in "
            "(`codememory status` shows the embed service's backlog)"
        )


def supersede_cmd(
    old: Annotated[str, typer.Argument(help="The earlier memory's id")],
    new: Annotated[str, typer.Argument(help="The later memory's id, which replaces it")],
    reason: str = "",
    json_out: Json = False,
) -> None:
    """Mark OLD as superseded by NEW: recall puts NEW first and shows OLD only as history."""
    response = call("Supersede", pb.SupersedeRequest(memory_id=old, superseded_by=new, reason=reason))
    if json_out:
        print_json(as_dict(response))
    else:
        typer.echo(f"{old} superseded by {new} (log seq {response.seq})")


def _regroup(method: str, request: cpb.MergeRequest | cpb.UnmergeRequest, json_out: bool, done: str) -> None:
    """Merge or Unmerge on the ConsolidationService, and what it did (``done``: "merged into" ...)."""
    result = call_service(cpb_grpc.ConsolidationServiceStub, method, request)
    if json_out:
        print_json(
            {"canonical_id": request.canonical_id, "memory_ids": list(result.memory_ids), "seq": result.seq}
        )
    else:
        typer.echo(f"{len(result.memory_ids)} {done} {request.canonical_id} (log seq {result.seq})")


def merge_cmd(
    canonical: Annotated[str, typer.Argument(help="The memory that keeps the wording and the sources")],
    memory_ids: Annotated[list[str], typer.Argument(help="Ids of memories that restate it")],
    reason: str = "",
    json_out: Json = False,
) -> None:
    """Merge restatements a cycle missed: each MEMORY_ID leaves recall and becomes a source of CANONICAL."""
    request = cpb.MergeRequest(canonical_id=canonical, memory_ids=memory_ids, reason=reason)
    _regroup("Merge", request, json_out, "merged into")


def unmerge_cmd(
    canonical: Annotated[str, typer.Argument(help="The canonical memory's id")],
    memory_ids: Annotated[list[str], typer.Argument(help="Ids merged into it to take back")],
    reason: str = "",
    json_out: Json = False,
) -> None:
    """Take a merge back: each MEMORY_ID is its own memory again and later cycles keep it apart."""
    request = cpb.UnmergeRequest(canonical_id=canonical, memory_ids=memory_ids, reason=reason)
    _regroup("Unmerge", request, json_out, "unmerged from")


def history_cmd(memory_id: str, json_out: Json = False) -> None:
    """How a memory came to be: what changed it, and the memories it names."""
    response = as_dict(call("History", pb.HistoryRequest(memory_id=memory_id)))
    if json_out:
        print_json(response)
        return
    memory = response.get("memory", {})
    console.print(f"[bold]{memory.get('id')}[/bold] ({memory.get('type')}, {memory.get('state')})")
    console.print(memory.get("text", ""), markup=False)
    for entry in response.get("entries", []):
        detail = " ".join(f"{k}={v}" for k, v in sorted(entry.get("detail", {}).items()))
        typer.echo(
            f"  {_day(float(entry.get('at', 0)))}  seq {entry.get('seq', 0):>6}  {entry['event']}  {detail}"
        )
    for related in response.get("related", []):
        when = _day(float(related.get("created_at", 0)))
        text = " ".join(str(related.get("text", "")).split())[:100]
        typer.echo(f"  related {related.get('id')} [{related.get('state')}, {when}] {text}")


def register(app: typer.Typer) -> None:
    app.command("consolidate")(consolidate_cmd)
    app.command("supersede")(supersede_cmd)
    app.command("merge")(merge_cmd)
    app.command("unmerge")(unmerge_cmd)
    app.command("history")(history_cmd)


__all__ = ["register"]
