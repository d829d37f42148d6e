"""Memory events: what was stored, changed, forgotten or erased, and the vectors derived from it.

A vector is an event too (``MemoryEmbedded``, named by its model), so replay never re-runs a model and a
model migration (``EmbeddingModelRequested``) is a fold over LOG.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from codememory.events.base import _Event


class MemoryScope(msgspec.Struct, frozen=True, kw_only=True):
    repo: str = ""
    branch: str = ""
    user: str = ""
    session_id: str = ""
    paths: tuple[str, ...] = ()


class MemoryStored(_Event, frozen=True, kw_only=True, tag="memory.stored"):
    """An explicit memory: stored by an agent, a person, or an import."""

    memory_id: str
    text: str
    memory_type: str = "note"
    scope: MemoryScope = MemoryScope()
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    source: str = "api"
    created_at: str = ""
    agent: str = ""  # the agent it came from (an import keeps what export wrote)


class MemoryRefined(_Event, frozen=True, kw_only=True, tag="memory.refined"):
    memory_id: str
    text: str = ""
    importance: float | None = None
    tags: tuple[str, ...] | None = None
    metadata: dict[str, str] | None = None


class MemoryDeprecated(_Event, frozen=True, kw_only=True, tag="memory.deprecated"):
    memory_id: str
    reason: str = ""


class MemoryForgotten(_Event, frozen=True, kw_only=True, tag="memory.forgotten"):
    memory_id: str
    reason: str = ""


class DataErased(_Event, frozen=True, kw_only=True, tag="data.erased"):
    """Keys were destroyed (``codememory erase``): the text of these records is gone from LOG for good.

    ``scope`` says what was erased (a user, a session, a memory); ``subject_digest`` is a keyed digest
    of its id (HMAC under the tenant's id key), never the id (a user's name is itself personal); each
    memory it covers is also forgotten by a ``MemoryForgotten`` appended just before, which is what
    projections fold.
    """

    scope: Literal["user", "session", "memory"]
    subject_digest: str
    memory_ids: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    keys_destroyed: int = 0


class MemoryEmbedded(_Event, frozen=True, kw_only=True, tag="memory.embedded"):
    """A memory text's dense vector; ``text_digest`` ties it to the exact text embedded.

    ``record`` names the key the embedded text is sealed with (``codememory.sealing.fields``; empty:
    the text is not sealed, a commit's): the vector and the digest are sealed with it too, so in LOG
    ``vector`` is empty and ``sealed_vector`` holds it; a reader gets it back, or ``()`` once erased.
    """

    memory_id: str
    model: str
    text_digest: str
    vector: tuple[float, ...]
    record: str = ""
    sealed_vector: str = ""


class EmbeddingModelRequested(_Event, frozen=True, kw_only=True, tag="embedding.model.requested"):
    """``codememory reembed --model``: from here on the embed service also writes this model's vectors,
    and embeds every memory already in LOG with it; the gateway switches to it once its index caught up."""

    model: str  # the spec (``codememory.embedding.models``), never a secret
    model_id: str = ""  # what its vectors are tagged with (``MemoryEmbedded.model``)


class EmbeddingBackfillCompleted(_Event, frozen=True, kw_only=True, tag="embedding.backfill.completed"):
    """The embed service embedded every memory up to ``until_seq`` with a requested model."""

    model: str
    model_id: str = ""
    until_seq: int = 0
    memories: int = 0
