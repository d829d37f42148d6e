"""What an exported memory was beyond its own text, made again on import: archived, superseded, merged.

Export writes every memory a tenant has not forgotten, with its state and the memory that state points
to (``superseded_by`` and when, ``merged_into``). An import makes the events that put a memory in that
state, the same events a consolidation cycle or a person writes (``memories.archived``,
``memory.superseded``, ``memories.merged``, with an empty ``cycle_id`` and the reason ``imported``), so
recall, ``history``, the consolidate service's view and replay treat an imported store as they treated
the exported one: the current rule first and the old one as history, a restated fact once with its
sources (the canonical memory's ``restated`` count comes back from its merged memories).

A state that names no other memory is made right after the memory's own event. The links wait until the
whole stream is in, because either end may come first: then every merge (grouped by the canonical
memory, in the order the stream named them), then every supersession. Merges go first because a merge
into a memory that has been superseded takes nothing (``consolidated.merge_takes``), and a canonical
memory can have been superseded after its restatements were merged into it. A link to a memory that is
neither in the stream nor in the store: a merge into it is not made (the restatement stays active, as
such a merge would have taken nothing), a supersession is (the memory is history, its successor unknown).

Not made again: the neighbours by meaning and the code links (the next cycle links the imported
memories as it links any new ones) and each memory's short change history (LOG positions of the
exporting store). Event ids are deterministic, so a retried batch appends once; an import run again gives
a memory it finds its exported state only if it is still active there (``importing``).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime

from codememory.events import (
    Envelope,
    MemoriesArchived,
    MemoriesMerged,
    MemoryDeprecated,
    MemorySource,
    MemoryStored,
    MemorySuperseded,
    deterministic_id,
    new_envelope,
)
from codememory.gateway.errors import InvalidArgument
from codememory.memory import ACTIVE, ARCHIVED, DEPRECATED, MERGED, SUPERSEDED, epoch_seconds

IMPORTED = "imported"  # the reason every event made here records
EXPORTED_STATES = (ACTIVE, DEPRECATED, ARCHIVED, SUPERSEDED, MERGED)  # every state but forgotten
STATES = ("", *EXPORTED_STATES)


@dataclass(frozen=True, kw_only=True)
class StateOf:
    """An imported memory's state as the export wrote it (``""`` or ``active``: nothing to make)."""

    state: str = ""
    superseded_by: str = ""
    superseded_at: float = 0.0  # seconds since the epoch; 0: when the event is folded
    merged_into: str = ""


def _linked(number: int, memory_id: str, value: str, what: str) -> str:
    try:
        linked = str(uuid.UUID(value))
    except ValueError as exc:
        raise InvalidArgument(f"memory {number}: {what} must be a memory id (a UUID), not {value!r}") from exc
    if linked == memory_id:
        raise InvalidArgument(f"memory {number}: a memory cannot be {what.replace('_', ' ')} itself")
    return linked


def check_state(number: int, memory_id: str, state: StateOf) -> StateOf:
    """``state`` with its links in canonical form; ``InvalidArgument`` naming memory ``number`` if the
    state is unknown or lacks the memory it needs."""
    if state.state not in STATES:
        known = ", ".join(s for s in STATES if s)
        raise InvalidArgument(f"memory {number}: state must be one of {known}, not {state.state!r}")
    if state.state == SUPERSEDED:
        if not state.superseded_by:
            raise InvalidArgument(f"memory {number}: a superseded memory needs superseded_by")
        return StateOf(
            state=SUPERSEDED,
            superseded_by=_linked(number, memory_id, state.superseded_by, "superseded_by"),
            superseded_at=max(0.0, state.superseded_at),
        )
    if state.state == MERGED:
        if not state.merged_into:
            raise InvalidArgument(f"memory {number}: a merged memory needs merged_into")
        return StateOf(state=MERGED, merged_into=_linked(number, memory_id, state.merged_into, "merged_into"))
    return StateOf(state=state.state)


@dataclass
class ImportLinks:
    """The state events of one import stream: ``now`` for each memory stored, ``at_end`` once."""

    tenant: str
    made: int = 0  # memories put in a state so far (a merge into a memory nowhere puts none)
    _merges: dict[str, list[MemorySource]] = field(default_factory=dict)  # by canonical id, in order
    _supersessions: list[MemorySuperseded] = field(default_factory=list)

    def now(self, stored: MemoryStored, state: StateOf) -> list[Envelope]:
        """What goes right after ``stored``: its deprecation or archiving; a link is kept for the end."""
        memory_id = stored.memory_id
        if state.state == DEPRECATED:
            event: MemoryDeprecated | MemoriesArchived = MemoryDeprecated(
                memory_id=memory_id, reason=IMPORTED
            )
            self.made += 1
            return [self._envelope(event, "deprecated", memory_id)]
        if state.state == ARCHIVED:
            event = MemoriesArchived(memory_ids=(memory_id,), reason=IMPORTED)
            self.made += 1
            return [self._envelope(event, "imported-archived", memory_id)]
        if state.state == SUPERSEDED:
            self._supersessions.append(
                MemorySuperseded(
                    memory_id=memory_id,
                    superseded_by=state.superseded_by,
                    superseded_at=state.superseded_at,
                    reason=IMPORTED,
                )
            )
        elif state.state == MERGED:
            source = MemorySource(
                memory_id=memory_id,
                session_id=stored.scope.session_id,
                created_at=epoch_seconds(stored.created_at, datetime.now(UTC)),
                memory_type=stored.memory_type,
            )
            self._merges.setdefault(state.merged_into, []).append(source)
        return []

    def canonical_ids(self) -> list[str]:
        """The memories this stream's merges are into, each once."""
        return list(self._merges)

    def at_end(self, present: Collection[str]) -> list[Envelope]:
        """Every merge into a memory of ``present`` (in the stream or the store), then every supersession
        this stream named (once; the next call makes none)."""
        envelopes = []
        for canonical_id, sources in self._merges.items():
            if canonical_id not in present:
                continue
            merged_ids = tuple(s.memory_id for s in sources)
            merge = MemoriesMerged(
                canonical_id=canonical_id, merged_ids=merged_ids, sources=tuple(sources), reason=IMPORTED
            )
            envelopes.append(self._envelope(merge, "imported-merged", canonical_id, *sorted(merged_ids)))
            self.made += len(merged_ids)
        for superseded in self._supersessions:
            envelopes.append(self._envelope(superseded, "imported-superseded", superseded.memory_id))
            self.made += 1
        self._merges, self._supersessions = {}, []
        return envelopes

    def _envelope(
        self, event: MemoryDeprecated | MemoriesArchived | MemoriesMerged | MemorySuperseded, *key: str
    ) -> Envelope:
        return new_envelope(event, event_id=deterministic_id(self.tenant, *key), tenant=self.tenant)


__all__ = ["EXPORTED_STATES", "IMPORTED", "STATES", "ImportLinks", "StateOf", "check_state"]
