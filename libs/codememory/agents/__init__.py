"""Wiring coding agents to codememory: each agent's hook config, merged into a project.

Every hook we register runs ``codememory hook --agent <name>``; the hook command itself (reading
the agent's payload from stdin) lives elsewhere. This package only knows where each agent looks
for hooks and how to add ours without disturbing anything already there.
"""

from codememory.agents.errors import HookConfigError, UnknownAgentError
from codememory.agents.install import (
    InstallResult,
    config_path,
    install_hooks,
    supported_agents,
    uninstall_hooks,
)
from codememory.agents.specs import SPECS, AgentSpec, EventHook

__all__ = [
    "SPECS",
    "AgentSpec",
    "EventHook",
    "HookConfigError",
    "InstallResult",
    "UnknownAgentError",
    "config_path",
    "install_hooks",
    "supported_agents",
    "uninstall_hooks",
]
