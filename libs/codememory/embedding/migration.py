"""A model change as events: the request that starts it and the backfill that completes its vectors.

``codememory reembed --model M`` appends ``EmbeddingModelRequested``; the embed service then writes M's
vectors for new memories beside the configured model's, and embeds every memory already in LOG with M
(``EmbeddingBackfillCompleted`` when done); the gateway builds M's index beside the one it serves and
switches once it has caught up. These events concern no tenant's memories, so they go under a tenant
of their own (``MODELS_TENANT``), whose subject ``cm.log._codememory.embedding.>`` a restarted embed
service reads to learn which models it writes. Event ids are derived from the model id, so asking twice
for the same model appends one request.
"""

from __future__ import annotations

from codememory.embedding.models import ModelSpec
from codememory.events import (
    EmbeddingBackfillCompleted,
    EmbeddingModelRequested,
    Envelope,
    deterministic_id,
    new_envelope,
)

MODELS_TENANT = "_codememory"
MODEL_EVENTS_SUBJECT = f"cm.log.{MODELS_TENANT}.embedding.>"


def model_requested(model: ModelSpec, *, nonce: str = "") -> Envelope:
    """The request for ``model``; ``nonce`` makes a new request for a model asked for before."""
    return new_envelope(
        EmbeddingModelRequested(model=model.spec, model_id=model.model_id),
        event_id=deterministic_id("embedding.model.requested", model.model_id, nonce),
        tenant=MODELS_TENANT,
    )


def backfill_completed(model: ModelSpec, until_seq: int, memories: int) -> Envelope:
    return new_envelope(
        EmbeddingBackfillCompleted(
            model=model.spec, model_id=model.model_id, until_seq=until_seq, memories=memories
        ),
        event_id=deterministic_id("embedding.backfill.completed", model.model_id, str(until_seq)),
        tenant=MODELS_TENANT,
    )
