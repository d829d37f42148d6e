"""Memories: which events become them, and their projection into the vector index."""

from codememory.memory.draft import MemoryDraft, memory_from_envelope, text_digest
from codememory.memory.position import Position
from codememory.memory.projection import (
    ACTIVE,
    DEPRECATED,
    FORGOTTEN,
    MemoryProjection,
    draft_payload,
    tenant_filter,
)

__all__ = [
    "ACTIVE",
    "DEPRECATED",
    "FORGOTTEN",
    "MemoryDraft",
    "MemoryProjection",
    "Position",
    "draft_payload",
    "memory_from_envelope",
    "tenant_filter",
    "text_digest",
]
