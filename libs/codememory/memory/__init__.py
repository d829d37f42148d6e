"""Memories: which events become them, and their projection into the vector index."""

from codememory.memory.draft import MemoryDraft, memory_from_envelope, text_digest
from codememory.memory.fold import ACTIVE, DEPRECATED, FORGOTTEN, PointState, draft_payload, fold, target_of
from codememory.memory.position import Position
from codememory.memory.projection import MemoryProjection

__all__ = [
    "ACTIVE",
    "DEPRECATED",
    "FORGOTTEN",
    "MemoryDraft",
    "MemoryProjection",
    "PointState",
    "Position",
    "draft_payload",
    "fold",
    "memory_from_envelope",
    "target_of",
    "text_digest",
]
