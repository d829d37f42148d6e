"""Which texts in a batch of LOG events need a vector, and the ``MemoryEmbedded`` events for them.

Domain logic only: envelopes in, envelopes out. The vector is tied to the exact text by its digest and
its event id is derived from the source event and the model, so re-embedding the same event appends
nothing new. Not from the digest: event ids stay clear in LOG, and an id made from the text's digest
would confirm a guess of an erased text. Each vector names the sealing record of its text
(``MemoryEmbedded.record``), so the codec seals the vector and the digest with the text's key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codememory.events import Envelope, MemoryEmbedded, MemoryRefined, deterministic_id, new_envelope
from codememory.memory import memory_from_envelope, text_digest
from codememory.sealing import record_of


@dataclass(frozen=True)
class EmbedJob:
    source: Envelope
    memory_id: str
    text: str


def jobs_for(envelopes: Sequence[Envelope]) -> list[EmbedJob]:
    jobs = []
    for envelope in envelopes:
        draft = memory_from_envelope(envelope)
        if draft is not None and draft.text.strip():
            jobs.append(EmbedJob(envelope, draft.memory_id, draft.text))
        elif isinstance(envelope.payload, MemoryRefined) and envelope.payload.text.strip():
            jobs.append(EmbedJob(envelope, envelope.payload.memory_id, envelope.payload.text))
    return jobs


def embedded_events(
    jobs: Sequence[EmbedJob], vectors: Sequence[Sequence[float]], model: str
) -> list[Envelope]:
    events = []
    for job, vector in zip(jobs, vectors, strict=True):
        record = record_of(job.source.payload)
        events.append(
            new_envelope(
                MemoryEmbedded(
                    memory_id=job.memory_id,
                    model=model,
                    text_digest=text_digest(job.text),
                    vector=tuple(vector),
                    record=record.record_id if record is not None else "",
                ),
                event_id=deterministic_id(job.source.event_id, "embedded", model),
                tenant=job.source.tenant,
                causation_id=job.source.event_id,
                correlation_id=job.source.correlation_id,
            )
        )
    return events
