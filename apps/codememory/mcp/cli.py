"""The typer commands ``codememory mcp`` and ``codememory install-mcp``.

Kept in this package (registered onto the CLI by ``cli.app``) so the MCP server's commands live with
it; the SDK and the server are imported only when ``mcp`` runs, so the rest of the CLI starts fast.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from codememory.cli.client import fail
from codememory.settings import SettingsError

_USAGE = 2  # a bad setting or argument, as the rest of the CLI reports it


def mcp_cmd(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio")] = False,
    host: Annotated[str, typer.Option(help="HTTP listen address (default 127.0.0.1)")] = "",
    port: Annotated[int, typer.Option(help="HTTP port (default 8765)")] = 0,
    project: Annotated[
        Path, typer.Option(help="The project served: default repository for code tools, review_diff's tree")
    ] = Path("."),
) -> None:
    """Serve codememory's memory and code graph as MCP tools (stdio, or streamable HTTP at /mcp)."""
    from codememory.mcp.server import configure_logging, serve_http, serve_stdio
    from codememory.mcp.settings import McpSettings

    try:
        settings = McpSettings.from_env(project, host=host, port=port)
    except SettingsError as exc:
        fail(str(exc), _USAGE)
    configure_logging()
    if http:
        typer.echo(f"codememory mcp: http://{settings.host}:{settings.port}/mcp", err=True)
        asyncio.run(serve_http(settings))
    else:
        asyncio.run(serve_stdio(settings))


def install_mcp_cmd(
    agent: Annotated[str, typer.Option(help="claude, cursor, codex or gemini")],
    project: Annotated[Path, typer.Option(help="Project directory")] = Path("."),
    command: Annotated[
        str, typer.Option(help="How the agent should invoke codememory (default: its absolute path)")
    ] = "codememory",
) -> None:
    """Register `codememory mcp` in the agent's MCP configuration of a project, merging."""
    from codememory.agents import HookConfigError, UnknownAgentError, install_mcp

    try:
        result = install_mcp(agent, project.resolve(), command=command)
    except (HookConfigError, UnknownAgentError, NotADirectoryError, ValueError) as exc:
        fail(str(exc), _USAGE)
    state = "updated" if result.changed else "already up to date"
    typer.echo(f"{result.path}: {state} ({result.entry['command']} {' '.join(result.entry['args'])})")


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)
    app.command("install-mcp")(install_mcp_cmd)


__all__ = ["register"]
