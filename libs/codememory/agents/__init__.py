"""Wiring coding agents to codememory: each agent's hook config and MCP server, merged into a project.

Every hook we register runs ``codememory hook --agent <name>``; the hook command itself (reading
the agent's payload from stdin) lives elsewhere. This package only knows where each agent looks
for hooks and MCP servers (``mcpinstall``), and how to add ours without disturbing anything already
there, naming codememory by its absolute path (``executable``).
"""

from codememory.agents.errors import HookConfigError, UnknownAgentError
from codememory.agents.install import (
    InstallResult,
    config_path,
    install_hooks,
    supported_agents,
    uninstall_hooks,
)
from codememory.agents.mcpinstall import MCP_TARGETS, McpInstallResult, install_mcp
from codememory.agents.specs import SPECS, AgentSpec, EventHook

__all__ = [
    "MCP_TARGETS",
    "SPECS",
    "AgentSpec",
    "EventHook",
    "HookConfigError",
    "InstallResult",
    "McpInstallResult",
    "UnknownAgentError",
    "config_path",
    "install_hooks",
    "install_mcp",
    "supported_agents",
    "uninstall_hooks",
]
