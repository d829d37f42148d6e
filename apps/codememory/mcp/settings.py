"""The MCP server's settings: where the stack's home is, the project it serves, and its limits.

Keys are ``CODEMEMORY_MCP_<KEY>`` falling back to ``CODEMEMORY_<KEY>``, as for every service. The
project is where the agent works: code tools default to its repository and ``review_diff`` diffs its
work tree, so an agent never has to name either. The repository is named as the hooks and
``codememory index`` name it (``hookclient.gitrepo``), so the graph the tools ask is the one indexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Self

from codememory.hookclient.gitrepo import find_git, repository_identity
from codememory.settings import SettingsError, default_home, env_float, env_int, env_str


@dataclass(frozen=True)
class McpSettings:
    home: Path
    project: Path
    repo: str
    branch: str
    budget_tokens: int = 2000
    timeout_s: float = 15.0
    host: str = "127.0.0.1"
    port: int = 8765

    @classmethod
    def from_env(cls, project: Path, *, host: str = "", port: int = 0) -> Self:
        """Settings for serving ``project`` (its git work tree's root when it is inside one)."""
        resolved = project.expanduser().resolve()
        if not resolved.is_dir():
            raise SettingsError(f"project directory does not exist: {project}")
        repo, root, branch = find_git(str(resolved))
        budget = env_int("mcp", "budget_tokens", cls.budget_tokens)
        if budget < 100:
            raise SettingsError(f"CODEMEMORY_MCP_BUDGET_TOKENS must be at least 100, got {budget}")
        return cls(
            home=default_home(),
            project=Path(root) if root else resolved,
            repo=repo or repository_identity(str(resolved)),
            branch=branch,
            budget_tokens=budget,
            timeout_s=env_float("mcp", "timeout_s", cls.timeout_s),
            host=host or env_str("mcp", "host", cls.host),
            port=port or env_int("mcp", "port", cls.port),
        )


__all__ = ["McpSettings"]
