"""The commands over the whole stack or a tenant's whole history: ``status``, ``replay``, ``log``,
``export`` and ``import``.

Why a module of its own: ``commands.py`` holds the app and the commands on one memory at a time;
these read or rewrite everything (the LOG, the projections, all memories), and ``log`` talks to NATS
rather than the gateway. ``register`` adds them to the app in ``--help`` order.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import grpc
import typer

from codememory.cli.client import call, connect, fail
from codememory.cli.render import Json, as_dict, print_json
from codememory.runtime.home import NotRunningError, read_runtime
from codememory.settings import default_home
from codememory.v1 import memory_pb2 as pb


def status(json_out: Json = False) -> None:
    """Health, counts and consumer lag; handled/s, errors, handler p50/p99 and lag from /metrics."""
    import dataclasses

    from codememory.cli.opscmds import metrics_headline
    from codememory.runtime.supervisor import read_processes

    response = as_dict(call("Status", pb.StatusRequest()))
    response["processes"] = read_processes(default_home())
    figures = metrics_headline(default_home())  # rates, errors, latency, lag from /metrics (opscmds.py)
    response["metrics"] = dataclasses.asdict(figures) if figures else None
    if json_out:
        print_json(response)
        return
    for key, value in response.items():
        if key != "metrics":
            typer.echo(f"{key}: {value}")
    for line in figures.lines() if figures else ["metrics: no endpoint answered"]:
        typer.echo(line)


def replay(json_out: Json = False) -> None:
    """Rebuild the projections from LOG, without re-embedding (a progress bar on a terminal)."""
    from codememory.cli.replaycmd import ReplayIncompleteError, watch_replay

    try:
        with connect(default_home()) as conn:
            response = as_dict(watch_replay(conn))
    except (NotRunningError, ReplayIncompleteError) as exc:
        fail(str(exc))
    except grpc.RpcError as exc:
        fail(f"{exc.code().name}: {exc.details()}")
    if json_out:
        print_json(response)
    else:
        same = response["digest_before"] == response["digest_after"]
        events, seconds = int(response["events"]), float(response["seconds"])
        typer.echo(
            f"replayed {events} events in {seconds:.2f}s ({events / max(seconds, 1e-9):,.0f} events/s),"
            f" serving; digest unchanged: {same}"
        )
        index_s = float(response.get("index_seconds", 0))
        if index_s:
            typer.echo(f"search index (HNSW) built and swapped in after {index_s:.2f}s")


def log_cmd(
    from_seq: Annotated[int, typer.Option("--from", help="First LOG sequence")] = 1,
    limit: int = 0,
    json_out: Json = False,
) -> None:
    """Print the events of LOG, oldest first."""
    from codememory.cli.logread import print_log

    try:
        nats_url = read_runtime(default_home()).nats_url
    except NotRunningError as exc:
        fail(str(exc))
    asyncio.run(print_log(nats_url, from_seq, limit, json_out))


def export(repo: str = "", output: Annotated[Path | None, typer.Option("--output", "-o")] = None) -> None:
    """Write every memory of your tenant as JSON lines."""
    from codememory.cli.transfer import export_lines

    try:
        with connect(default_home()) as conn:
            lines = export_lines(conn, repo)
            if output is None:
                for line in lines:
                    sys.stdout.write(line + "\n")
            else:
                with output.open("w") as handle:
                    for line in lines:
                        handle.write(line + "\n")
    except NotRunningError as exc:
        fail(str(exc))


def import_cmd(
    source: Annotated[Path, typer.Argument(help="JSON lines file, - for stdin")],
    no_wait_embedded: Annotated[
        bool, typer.Option("--no-wait-embedded", help="return once recallable lexically")
    ] = False,
) -> None:
    """Store memories from JSON lines (as written by export) through the event path, in batches."""
    from codememory.cli.transfer import ImportError_, import_memories, parse_lines

    handle = sys.stdin if str(source) == "-" else source.open()
    try:
        memories = parse_lines(handle)
        with connect(default_home()) as conn:
            summary = import_memories(conn, memories, wait_embedded=not no_wait_embedded)
    except (NotRunningError, ImportError_) as exc:
        fail(str(exc))
    except grpc.RpcError as exc:
        fail(f"{exc.code().name}: {exc.details()}")
    typer.echo(json.dumps(summary))


def register(app: typer.Typer) -> None:
    app.command()(status)
    app.command()(replay)
    app.command("log")(log_cmd)
    app.command()(export)
    app.command("import")(import_cmd)
