"""An import run and memories to import, for the tests of bulk import and of its wait for vectors."""

from __future__ import annotations

from codememory.events import MemoryScope
from codememory.gateway.core import GatewayCore
from codememory.gateway.importing import ImportedMemory, ImportRun
from codememory.gateway.writes import NewMemory
from codememory.memorylines import StateOf


def import_run(core: GatewayCore, tenant: str = "t1") -> ImportRun:
    return ImportRun(tenant, core.live, core.event_log, core.clean)


def imported_memories(n: int, **kw: StateOf) -> list[ImportedMemory]:
    return [
        ImportedMemory(
            memory=NewMemory(text=f"fact {i}: service{i} retries {i % 5} times", scope=MemoryScope(repo="r")),
            **kw,
        )
        for i in range(n)
    ]
