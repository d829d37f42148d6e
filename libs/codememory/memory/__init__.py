"""Memories: which events become them, and their projection into the vector index."""

from codememory.memory.consolidated import ARCHIVED, MERGED, SUPERSEDED
from codememory.memory.draft import MemoryDraft, epoch_seconds, memory_from_envelope, text_digest
from codememory.memory.enrich import Enrichment, date_words, indexed_text
from codememory.memory.fold import (
    ACTIVE,
    DEPRECATED,
    FORGOTTEN,
    LIVE_STATES,
    PointState,
    draft_payload,
    fold,
    targets_of,
)
from codememory.memory.points import POINT_IDS, memory_id_of, point_id, point_ids
from codememory.memory.position import Position
from codememory.memory.projection import MemoryProjection

__all__ = [
    "ACTIVE",
    "ARCHIVED",
    "DEPRECATED",
    "FORGOTTEN",
    "LIVE_STATES",
    "MERGED",
    "POINT_IDS",
    "SUPERSEDED",
    "Enrichment",
    "MemoryDraft",
    "MemoryProjection",
    "PointState",
    "Position",
    "date_words",
    "draft_payload",
    "epoch_seconds",
    "fold",
    "indexed_text",
    "memory_from_envelope",
    "memory_id_of",
    "point_id",
    "point_ids",
    "targets_of",
    "text_digest",
]
