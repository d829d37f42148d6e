"""What a caller asks the gateway to store, and what it gets back: shared by Store and Import.

``NewMemory`` is the request after conversion from gRPC (``convert.py``) and clamping (``clamps.py``);
its ``stored`` makes the one ``MemoryStored`` event both paths append, so a memory imported and a memory
stored are the same fact in LOG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from codememory.events import MemoryScope, MemoryStored

MAX_TEXT = 16_000


def redacted_metadata(metadata: Mapping[str, str], clean: Callable[[str], str]) -> dict[str, str]:
    """Each metadata value passed through ``clean``: the one rule for Store, Import and import workers."""
    return {key: clean(value) for key, value in metadata.items()}


@dataclass(frozen=True, kw_only=True)
class NewMemory:
    text: str
    memory_type: str = "note"
    scope: MemoryScope = field(default_factory=MemoryScope)
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: Mapping[str, str] = field(default_factory=dict)
    memory_id: str = ""
    created_at: str = ""
    agent: str = ""

    def stored(
        self, memory_id: str, text: str, clean: Callable[[str], str], *, source: str = "api"
    ) -> MemoryStored:
        """The event that stores this memory as ``memory_id`` with ``text`` (checked and redacted
        already) and its metadata values passed through ``clean`` (Store and Import alike)."""
        return MemoryStored(
            memory_id=memory_id,
            text=text,
            memory_type=self.memory_type or "note",
            scope=self.scope,
            tags=self.tags,
            importance=self.importance,
            metadata=redacted_metadata(self.metadata, clean),
            source=source,
            created_at=self.created_at,
            agent=self.agent,
        )


@dataclass(frozen=True)
class Written:
    memory_id: str
    seq: int
    others: tuple[str, ...] = ()  # a merge's or unmerge's other memories as named, each once, in order
