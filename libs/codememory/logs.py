"""structlog, configured in one function for every service and the CLI.

JSON lines when stderr is not a terminal (containers, CI), console output on a terminal;
``merge_contextvars`` first so per-message and per-RPC context bound by the edges shows up everywhere.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(service: str, *, level: str = "info", json: bool | None = None) -> None:
    use_json = (not sys.stderr.isatty()) if json is None else json
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    structlog.contextvars.bind_contextvars(service=service)
