"""The typer app and its commands on one memory at a time (``recall``, ``store``, ``refine`` ...), with
``up`` and ``install-hooks``. Each parses its options, calls the gateway, and renders. The other
commands live in modules of their own, each with a ``register(app)`` called at the end, in the order
``--help`` lists them: ``datacmds`` (status, replay, log, export, import), ``codecmds``, ``opscmds``,
``consolidatecmds``, ``reviewcmd``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from codememory.cli.client import call, fail
from codememory.cli.codecmds import register as register_code_commands
from codememory.cli.consolidatecmds import register as register_consolidate_commands
from codememory.cli.datacmds import register as register_data_commands
from codememory.cli.opscmds import register as register_ops_commands
from codememory.cli.render import Json, as_dict, console, hits_table, print_json
from codememory.cli.reviewcmd import register as register_review_command
from codememory.v1 import memory_pb2 as pb

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Persistent, code-aware memory for AI coding agents."
)


@app.command()
def up(
    scale: Annotated[
        str, typer.Option(help="Replicas per service as separate supervised processes, e.g. ingest=2,embed=2")
    ] = "",
    tls: Annotated[bool, typer.Option("--tls", help="NATS over TLS only (a local CA in the home)")] = False,
) -> None:
    """Start the embedded stack: nats-server, every service, Qdrant Edge, the gRPC gateway (foreground)."""
    from dataclasses import replace

    from codememory.runtime.stack import StackSettings, run_stack
    from codememory.settings import SettingsError

    try:
        settings = StackSettings.from_env(scale=scale)
    except SettingsError as exc:
        fail(str(exc), 2)
    if tls:
        settings = replace(settings, tls=True)
    asyncio.run(run_stack(settings))


@app.command("install-hooks")
def install_hooks_cmd(
    agent: Annotated[str, typer.Option(help="claude, cursor, codex or gemini")] = "",
    project: Annotated[Path, typer.Option(help="Project directory")] = Path("."),
    command: Annotated[str, typer.Option(help="How the agent should invoke codememory")] = "codememory",
    git: Annotated[bool, typer.Option("--git", help="Also install a git post-commit hook")] = False,
) -> None:
    """Write the agent's hook configuration (and/or a git post-commit hook) into a project, merging."""
    from codememory.agents import HookConfigError, UnknownAgentError, install_hooks

    if git:
        _install_git_hook(project, command)
    if not agent:
        if not git:
            fail("say which --agent (claude, cursor, codex, gemini) and/or --git", 2)
        return
    try:
        result = install_hooks(agent, project.resolve(), command=command)
    except (HookConfigError, UnknownAgentError, NotADirectoryError) as exc:
        fail(str(exc), 2)
    state = "updated" if result.changed else "already up to date"
    typer.echo(f"{result.path}: {state} (added: {', '.join(result.events_added) or 'none'})")


def _install_git_hook(project: Path, command: str) -> None:
    from codememory.agents import HookConfigError
    from codememory.agents.githook import install_post_commit
    from codememory.githistory import NotAGitRepositoryError

    try:
        path = install_post_commit(project.resolve(), command=f"{command} record-commit")
    except (HookConfigError, NotAGitRepositoryError) as exc:
        fail(str(exc), 2)
    typer.echo(f"{path}: post-commit records each commit")


@app.command()
def recall(
    query: str,
    repo: str = "",
    branch: str = "",
    user: str = "",
    session: str = "",
    type: Annotated[list[str] | None, typer.Option("--type", help="Memory type (repeatable)")] = None,
    path: Annotated[list[str] | None, typer.Option("--path", help="Linked path (repeatable)")] = None,
    since: float = 0.0,
    until: float = 0.0,
    limit: int = 10,
    include_deprecated: bool = False,
    include_history: Annotated[
        bool, typer.Option(help="Also restatements merged into a canonical memory, and archived ones")
    ] = False,
    working: Annotated[
        list[str] | None, typer.Option("--working", help="A file or symbol you are working on (repeatable)")
    ] = None,
    json_out: Json = False,
) -> None:
    """Ranked memories for a query, with the parts of each score."""
    request = pb.RecallRequest(
        query=query,
        limit=limit,
        repo=repo,
        branch=branch,
        user=user,
        session_id=session,
        types=type or [],
        paths=path or [],
        since=since,
        until=until,
        include_deprecated=include_deprecated,
        include_history=include_history,
        working_set=working or [],
    )
    response = as_dict(call("Recall", request))
    if json_out:
        print_json(response)
    else:
        console.print(hits_table(response["hits"]))


@app.command()
def store(
    text: str,
    type: str = "note",
    repo: str = "",
    branch: str = "",
    user: str = "",
    session: str = "",
    tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
    path: Annotated[list[str] | None, typer.Option("--path")] = None,
    importance: float = 0.5,
    json_out: Json = False,
) -> None:
    """Store a memory explicitly."""
    request = pb.StoreRequest(
        text=text,
        type=type,
        tags=tag or [],
        importance=importance,
        scope=pb.Scope(repo=repo, branch=branch, user=user, session_id=session, paths=path or []),
    )
    _print_mutation(call("Store", request), json_out)


def _print_mutation(response: pb.MutationResponse, json_out: bool) -> None:
    if json_out:
        print_json(as_dict(response))
    else:
        typer.echo(f"{response.memory_id} (log seq {response.seq})")


@app.command()
def refine(
    memory_id: str,
    text: str = "",
    importance: Annotated[float | None, typer.Option()] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
    json_out: Json = False,
) -> None:
    """Change a memory's text, importance or tags."""
    request = pb.RefineRequest(memory_id=memory_id, text=text, tags=tag or [], replace_tags=bool(tag))
    if importance is not None:
        request.importance = importance
    _print_mutation(call("Refine", request), json_out)


@app.command()
def deprecate(memory_id: str, reason: str = "", json_out: Json = False) -> None:
    """Mark a memory as outdated: recall leaves it out unless asked to include it."""
    _print_mutation(call("Deprecate", pb.DeprecateRequest(memory_id=memory_id, reason=reason)), json_out)


@app.command()
def forget(memory_id: str, reason: str = "", json_out: Json = False) -> None:
    """Forget a memory: it leaves every projection at once."""
    _print_mutation(call("Forget", pb.ForgetRequest(memory_id=memory_id, reason=reason)), json_out)


register_data_commands(app)
register_code_commands(app)
register_ops_commands(app)
register_consolidate_commands(app)
register_review_command(app)
