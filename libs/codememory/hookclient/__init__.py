"""The agent hook client: a stdlib-only, blocking path from hook stdin to a JetStream ack.

It lives apart from the async services because it runs as a new process for every agent event
and must finish in tens of milliseconds; see ``main`` for the flow and ``wire`` for why it speaks
the NATS protocol itself.
"""

from __future__ import annotations

from codememory.hookclient.main import flush_spool, main, run_hook
from codememory.hookclient.settings import HookSettings

__all__ = ["HookSettings", "flush_spool", "main", "run_hook"]
