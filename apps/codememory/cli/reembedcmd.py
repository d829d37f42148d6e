"""``codememory reembed --model M``: move recall to another embedding model without downtime.

The gateway's ModelService starts the migration and this command follows it (``--no-wait``: start and
return): the embed service writes M's vectors beside the old ones, the gateway builds M's index while
recall is served from the old one, then switches. ``--status`` shows the model serving recall and the
migration's progress. Switching back to a model used before needs no embedding (its vectors are in LOG).
Registered onto the CLI by ``cli.app``.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from codememory.cli.client import connect, reported_failures
from codememory.cli.render import as_dict, print_json
from codememory.settings import default_home
from codememory.v1 import models_pb2 as mpb
from codememory.v1 import models_pb2_grpc

DONE = ("switched", "failed", "idle", "cancelled")


def describe(status: mpb.MigrationStatus) -> str:
    line = f"recall model: {status.active_model} ({status.active_dim} dimensions)"
    if status.target_model and status.phase != "switched":
        line += (
            f"; migration to {status.target_model}: {status.phase}, {status.embedded}/{status.target}"
            f" memories with vectors, LOG {status.folded_seq}/{status.log_seq}, {status.seconds:.1f}s"
        )
    elif status.phase == "switched":
        line += f"; switched in {status.seconds:.1f}s"
    if status.error:
        line += f"; error: {status.error}"
    return line


def reembed_cmd(
    model: Annotated[
        str, typer.Option(help="all-MiniLM-L6-v2, all-mpnet-base-v2, local:<dir>, openai:<m>@<url>")
    ] = "",
    status: Annotated[
        bool, typer.Option("--status", help="Show the model and the migration's progress")
    ] = False,
    cancel: Annotated[bool, typer.Option("--cancel", help="Stop the running migration")] = False,
    wait: Annotated[bool, typer.Option(help="Follow the migration until it switches")] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Move recall to another embedding model (blue/green, no downtime); --status, --cancel."""
    if not model and not status and not cancel:
        typer.echo("codememory: give --model M, --status or --cancel", err=True)
        raise typer.Exit(2)
    with reported_failures(), connect(default_home()) as conn:
        assert conn.channel is not None
        stub, metadata = models_pb2_grpc.ModelServiceStub(conn.channel), conn.metadata
        if cancel:
            answer = stub.CancelMigration(mpb.ModelStatusRequest(), metadata=metadata, timeout=60)
        elif status:
            answer = stub.ModelStatus(mpb.ModelStatusRequest(), metadata=metadata, timeout=30)
        else:
            answer = stub.Reembed(mpb.ReembedRequest(model=model), metadata=metadata, timeout=120)
            while wait and answer.phase not in DONE:
                if not json_out:
                    typer.echo(describe(answer), err=True)
                time.sleep(1.0)
                answer = stub.ModelStatus(mpb.ModelStatusRequest(), metadata=metadata, timeout=30)
    if json_out:
        print_json(as_dict(answer))
    else:
        typer.echo(describe(answer))
    if answer.phase == "failed":
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("reembed")(reembed_cmd)
