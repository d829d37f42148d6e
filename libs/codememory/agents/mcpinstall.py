"""Register ``codememory mcp`` in a project's agent configuration, merging, never clobbering.

Each agent keeps its MCP servers in its own file and format (sources inline). The rule is the one
``install_hooks`` follows: everything already in the file stays as it was, in order (other servers,
settings, and in TOML the comments too); our server is one entry named ``codememory``. An existing
entry of that name is updated in place (``command`` and ``args`` only, so a user's ``env`` or
timeouts on it survive); a second install with nothing to change writes nothing. A file that does
not parse, or whose server table is not a table, raises ``HookConfigError`` and is left untouched.

The command is this installation's codememory by absolute path and the project by absolute path:
an agent starts MCP servers with its own PATH and working directory.
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any, Literal

import tomlkit

from codememory.agents.errors import HookConfigError, UnknownAgentError
from codememory.agents.executable import resolve_command
from codememory.agents.jsonfile import load_config, render, write_atomic
from codememory.agents.tomlfile import load_toml, render_toml

SERVER_NAME = "codememory"


@dataclass(frozen=True, slots=True)
class McpTarget:
    """Where one agent reads project MCP servers: the file, its format, the table holding servers."""

    agent: str
    relative_path: PurePosixPath
    format: Literal["json", "toml"]
    table: str


# Claude Code: <project>/.mcp.json {"mcpServers": {name: {"command", "args", "env"}}} (project scope).
# Cursor: <project>/.cursor/mcp.json, the same shape. Gemini CLI: "mcpServers" in
# <project>/.gemini/settings.json (docs/tools/mcp-server.md). Codex CLI: [mcp_servers.<name>] with
# command and args in <project>/.codex/config.toml, read for trusted projects (developers.openai.com
# /codex/mcp and codex-rs config types).
MCP_TARGETS = MappingProxyType(
    {
        "claude": McpTarget("claude", PurePosixPath(".mcp.json"), "json", "mcpServers"),
        "cursor": McpTarget("cursor", PurePosixPath(".cursor/mcp.json"), "json", "mcpServers"),
        "codex": McpTarget("codex", PurePosixPath(".codex/config.toml"), "toml", "mcp_servers"),
        "gemini": McpTarget("gemini", PurePosixPath(".gemini/settings.json"), "json", "mcpServers"),
    }
)


@dataclass(frozen=True, slots=True)
class McpInstallResult:
    agent: str
    path: Path
    changed: bool
    entry: dict[str, Any]


def server_entry(project_dir: Path, command: str = "codememory") -> dict[str, Any]:
    """``{"command": <absolute codememory>, "args": ["mcp", "--project", <absolute project>]}``."""
    words = shlex.split(resolve_command(command))
    if not words:
        raise ValueError("the codememory command is empty")
    return {"command": words[0], "args": [*words[1:], "mcp", "--project", str(project_dir.resolve())]}


def install_mcp(agent: str, project_dir: Path, *, command: str = "codememory") -> McpInstallResult:
    """Add (or bring up to date) the ``codememory`` MCP server in ``agent``'s project configuration."""
    target = MCP_TARGETS.get(agent.strip().lower())
    if target is None:
        raise UnknownAgentError(agent, MCP_TARGETS)
    if not project_dir.is_dir():
        raise NotADirectoryError(f"project directory does not exist: {project_dir}")
    path = project_dir / target.relative_path
    entry = server_entry(project_dir, command)
    if target.format == "toml":
        changed = _merge_toml(path, target.table, entry)
    else:
        changed = _merge_json(path, target.table, entry)
    return McpInstallResult(target.agent, path, changed, entry)


def _merge_json(path: Path, table: str, entry: dict[str, Any]) -> bool:
    original = load_config(path)
    data: dict[str, Any] = {} if original is None else copy.deepcopy(original)
    servers = data.setdefault(table, {})
    if not isinstance(servers, dict):
        raise HookConfigError(path, f"'{table}' must be an object, not {type(servers).__name__}")
    current = servers.get(SERVER_NAME)
    if current is not None and not isinstance(current, dict):
        raise HookConfigError(path, f"'{table}.{SERVER_NAME}' must be an object")
    merged = {**(current or {}), **entry}
    if original is not None and current == merged:
        return False
    servers[SERVER_NAME] = merged
    write_atomic(path, render(data))
    return True


def _merge_toml(path: Path, table: str, entry: dict[str, Any]) -> bool:
    document = load_toml(path)
    fresh = document is None
    if document is None:
        document = tomlkit.document()
    servers = document.get(table)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[table] = servers
    if not isinstance(servers, dict):
        raise HookConfigError(path, f"'{table}' must be a table, not {type(servers).__name__}")
    current = servers.get(SERVER_NAME)
    if current is None:
        ours = tomlkit.table()
        for key, value in entry.items():
            ours[key] = value
        ours.add(tomlkit.nl())  # a blank line before whatever table follows ours
        servers[SERVER_NAME] = ours
    elif isinstance(current, dict):
        if all(current.get(key) == value for key, value in entry.items()) and not fresh:
            return False
        for key, value in entry.items():  # in place: the user's other keys and comments stay
            current[key] = value
    else:
        raise HookConfigError(path, f"'{table}.{SERVER_NAME}' must be a table")
    write_atomic(path, render_toml(document).rstrip("\n") + "\n")
    return True


__all__ = ["MCP_TARGETS", "SERVER_NAME", "McpInstallResult", "McpTarget", "install_mcp", "server_entry"]
