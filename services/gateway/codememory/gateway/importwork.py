"""What an import's intake workers run: redact a chunk of memories' texts and metadata values.

Why a module of its own: a spawned worker imports the module of the function it runs, and
``importing`` imports the memory projection and the index (Qdrant Edge); this one imports nothing the
work does not need. Redaction (every rule of ``codememory.redaction`` over each text) was about a
third of preparing a batch of 1,000 memories, under the GIL of the process that also folds, appends
and embeds them; in the workers (``codeintake.CodeIntake``'s pool, shared with RecordCode) it runs
on the other core while the gateway seals and appends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from codememory.gateway.writes import redacted_metadata

Cleaned = tuple[str, dict[str, str]]  # a memory's text (stripped) and metadata values, redacted


def clean_chunk(
    clean: Callable[[str], str], texts: Sequence[str], metadatas: Sequence[Mapping[str, str]]
) -> list[Cleaned]:
    """Each text redacted and stripped, and each of its metadata values redacted (runs in a worker
    process, or in a thread when there is none)."""
    return [
        (clean(text).strip(), redacted_metadata(metadata, clean))
        for text, metadata in zip(texts, metadatas, strict=True)
    ]


__all__ = ["Cleaned", "clean_chunk"]
