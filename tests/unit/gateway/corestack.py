"""A gateway core over an in-memory log and a real Qdrant Edge shard, the projection polling the log:
the fixture of the core's own tests (store, tenancy, import), registered in ``conftest``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from wordhash import DIM, WordHashEmbedder  # type: ignore[import-not-found]

from codememory.events import InMemoryEventLog
from codememory.gateway.core import GatewayCore
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection, poll
from codememory.redaction import clean_text
from codememory.vectorstore import EdgeVectorIndex


def memory_projection(path: Path) -> MemoryProjection:
    return MemoryProjection(
        EdgeVectorIndex(path / "shard", DIM), SparseEncoder(), Position(path / "pos.json")
    )


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[GatewayCore]:
    log = InMemoryEventLog()
    live = LiveProjection(memory_projection(tmp_path / "live"))
    task = asyncio.create_task(poll(log, live))
    yield GatewayCore(live, log, WordHashEmbedder(), SparseEncoder(), write_wait_s=2.0, clean_text=clean_text)
    task.cancel()


async def export_rows(core: GatewayCore, tenant: str) -> list[dict[str, Any]]:
    """What ``core.export`` yields for ``tenant``, as a list."""
    return [row async for row in core.export(tenant)]
