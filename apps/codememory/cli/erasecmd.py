"""``codememory erase``: erase a user's, a session's or a memory's text for good (ErasureService.Erase).

Exactly one of ``--user``, ``--session`` and ``--memory``. The gateway destroys the keys the text was
sealed with and records the erasure in LOG (docs/security.md, "Erasure"); it cannot be undone, so on a
terminal the command asks first unless ``--yes``. Needs a token that is both the tenant's and an
admin's (``codememory up``'s local token is).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from codememory.cli.client import call_service
from codememory.cli.render import print_json
from codememory.v1 import erasure_pb2 as pb
from codememory.v1 import erasure_pb2_grpc as pb_grpc

__all__ = ["erase_cmd", "register"]


def _request(user: str, session: str, memory: str) -> pb.EraseRequest:
    given = (("user", user), ("session_id", session), ("memory_id", memory))
    chosen = [(name, value) for name, value in given if value]
    if len(chosen) != 1:
        typer.echo("codememory: give exactly one of --user, --session or --memory", err=True)
        raise typer.Exit(2)
    name, value = chosen[0]
    return pb.EraseRequest(**{name: value})


def erase_cmd(
    user: Annotated[str, typer.Option(help="Erase everything recorded for this user.")] = "",
    session: Annotated[str, typer.Option(help="Erase a session and the memories made from it.")] = "",
    memory: Annotated[str, typer.Option(help="Erase one memory.")] = "",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Erase text from LOG for good: destroys its keys and forgets the memories it covers."""
    request = _request(user, session, memory)
    if not yes and sys.stdin.isatty():
        typer.confirm("This cannot be undone. Erase?", abort=True)
    result: pb.EraseResponse = call_service(pb_grpc.ErasureServiceStub, "Erase", request, timeout=60.0)
    if json_out:
        print_json(
            {
                "memory_ids": list(result.memory_ids),
                "session_ids": list(result.session_ids),
                "keys_destroyed": result.keys_destroyed,
                "seq": result.seq,
            }
        )
        return
    typer.echo(
        f"erased: {len(result.memory_ids)} memories, {len(result.session_ids)} sessions, "
        f"{result.keys_destroyed} keys destroyed (LOG seq {result.seq})"
    )


def register(app: typer.Typer) -> None:
    app.command("erase")(erase_cmd)
