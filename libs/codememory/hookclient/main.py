"""``codememory hook --agent NAME``: the short-lived process an agent runs for every hook event.

It must never break the agent: whatever happens it exits 0, writes nothing to stdout but the
context JSON, and sends errors to ``<home>/logs/hook.log``. It must also be fast (the agent waits
for it), so the whole path imports only the stdlib and ``codememory.redaction``; the
``codememory`` console script dispatches here before importing typer or anything heavy. This
module itself imports nothing that can fail: the real work (``runner``) is imported inside the
guarded call, so even a broken install only costs the event, never the agent's turn.
"""

from __future__ import annotations

import os
import sys

from codememory.hookclient.settings import HookSettings, log_line

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

__all__ = ["main", "main_and_exit"]


def main(argv: list[str]) -> int:
    """Entry point; always returns 0."""
    settings: HookSettings | None = None
    try:
        settings = HookSettings.from_env()
        agent = _parse_agent(argv)
        if agent is None:
            log_line(settings, f"no --agent in {argv!r}; recording as 'unknown'")
            agent = "unknown"
        raw = _read_stdin()
        from codememory.hookclient.runner import run_hook

        output = run_hook(agent, raw, settings)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # the agent must never see a failure
        log_line(settings, f"hook failed: {type(exc).__name__}: {exc}")
    return 0


def main_and_exit(argv: list[str]) -> NoReturn:
    """``main``, then leave at once with ``os._exit``: skips interpreter teardown (~5-7 ms here).

    For the console-script dispatch only (never in-process: it ends the process without cleanup).
    Everything ``main`` writes is closed or flushed before this point.
    """
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # a closed pipe must not stop the exit
            continue
    os._exit(code)


def _parse_agent(argv: Sequence[str]) -> str | None:
    for index, arg in enumerate(argv):
        if arg == "--agent" and index + 1 < len(argv):
            return argv[index + 1] or None
        if arg.startswith("--agent="):
            return arg[len("--agent=") :] or None
    return None


def _read_stdin() -> bytes:
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return b""
    return stdin.buffer.read()
