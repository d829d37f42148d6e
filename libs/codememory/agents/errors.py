"""Typed errors for hook installation.

Both subclass ``ValueError`` so a CLI can catch one family and print it, while tests and callers
can tell "you named an agent we do not know" apart from "the project's config file is broken and we
refused to touch it". A broken file is the user's data: we report it, never repair or overwrite it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class UnknownAgentError(ValueError):
    """The agent name is not one codememory can write hooks for."""

    def __init__(self, agent: str, supported: Iterable[str]) -> None:
        self.agent = agent
        self.supported = tuple(supported)
        super().__init__(f"unknown agent {agent!r}; supported agents: {', '.join(self.supported)}")


class HookConfigError(ValueError):
    """An existing agent config file cannot be merged safely; it was left untouched."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason} (file left unchanged)")
