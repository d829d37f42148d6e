"""The agent hook client: a stdlib-only, blocking path from hook stdin to a JetStream ack.

It lives apart from the async services because it runs as a new process for every agent event
and must finish in tens of milliseconds; see ``main`` for the entry point, ``runner`` for the
flow and ``wire`` for why it speaks the NATS protocol itself. This package module imports only
what cannot fail, so ``codememory.hookclient.main`` is always importable; ``run_hook`` and
``flush_spool`` load the rest on first call.
"""

from __future__ import annotations

from codememory.hookclient.main import main
from codememory.hookclient.settings import HookSettings

__all__ = ["HookSettings", "flush_spool", "main", "run_hook"]


def run_hook(agent: str, raw: bytes, settings: HookSettings) -> str | None:
    """Publish (or spool) one event; the context line to print, if any. See ``runner.run_hook``."""
    from codememory.hookclient.runner import run_hook as run

    return run(agent, raw, settings)


def flush_spool(settings: HookSettings, max_seconds: float = 30.0) -> int:
    """Publish everything spooled (for ``codememory up``); how many went. See ``runner.flush_spool``."""
    from codememory.hookclient.runner import flush_spool as flush

    return flush(settings, max_seconds)
