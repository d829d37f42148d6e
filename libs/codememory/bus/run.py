"""Running a FastStream application as the process's only job, until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging

from faststream import FastStream


def run_app(app: FastStream) -> None:
    """FastStream installs the signal handlers; its own startup lines go out at WARNING and above."""
    asyncio.run(app.run(log_level=logging.WARNING))
