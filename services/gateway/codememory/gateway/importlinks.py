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
memory), then every supersession. Merges go first because a merge into a memory that has been
superseded takes nothing (``consolidated.merge_takes``), and a canonical memory can have been superseded
after its restatements were merged into it. For the same reason a merge into a memory that is itself
merged into another (a cycle merges a lesser canonical memory into a better one) is made before that
memory's own merge: innermost first. A link to a memory that is neither in the stream nor in the store
(nor forgotten there): a merge into it is not made (the restatement stays active, as such a merge would
have taken nothing), a supersession is (the memory is history, its successor unknown). ``made`` counts
the memories whose state events were written; one that finds its memory elsewhere already changes nothing.

Not made again: the neighbours by meaning and the code links (the next cycle links the imported
memories as it links any new ones) and each memory's short change history (LOG positions of the
exporting store). Event ids are deterministic, so a retried batch appends once; an import run again gives
a memory it finds its exported state only if nothing has changed it since it was stored (``untouched``):
an import cut short gets its states, a memory a person unmerged since stays unmerged. Each memory is
given its state once per stream, however often it is named.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

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
from codememory.memorylines import LineStateError, StateOf, checked_state

IMPORTED = "imported"  # the reason every event made here records


def check_state(number: int, memory_id: str, state: StateOf) -> StateOf:
    """``state`` with its link in canonical form (``memorylines.checked_state``, the rules the CLI
    checks before sending); ``InvalidArgument`` naming memory ``number`` if it breaks them."""
    try:
        return checked_state(memory_id, state)
    except LineStateError as exc:
        raise InvalidArgument(f"memory {number}: {exc}") from exc


def untouched(payload: Mapping[str, Any] | None) -> bool:
    """Whether a memory found in the store is as it was stored: active, with no change in its history
    (no refinement, deprecation, merge, unmerge or supersession; a cycle's decay of its importance and
    its links by meaning are not recorded there); only such a one is given its exported state."""
    return payload is not None and payload.get("state") == ACTIVE and not payload.get("history")


@dataclass
class ImportLinks:
    """The state events of one import stream: ``now`` for each memory stored, ``at_end`` once."""

    tenant: str
    made: int = 0  # memories whose exported state this stream wrote (a merge into a memory nowhere: none)
    _merges: dict[str, list[MemorySource]] = field(default_factory=dict)  # by canonical id, in order
    _supersessions: list[MemorySuperseded] = field(default_factory=list)
    _done: set[str] = field(default_factory=set)  # memories given their state: once each

    def now(self, stored: MemoryStored, state: StateOf) -> list[Envelope]:
        """What goes right after ``stored``: its deprecation or archiving; a link is kept for the end.
        A memory given its state once is left alone (a line repeated, or read back in a later batch)."""
        memory_id = stored.memory_id
        if memory_id in self._done or state.state in ("", ACTIVE):
            return []
        self._done.add(memory_id)
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
                created_at=epoch_seconds(stored.created_at, datetime.now(UTC)),  # no time: now
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
        for canonical_id in self._innermost_first():
            sources = self._merges[canonical_id]
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

    def _innermost_first(self) -> list[str]:
        """The canonical memories, a memory merged into another after the merges into it (by depth in
        the chain of merges; the stream's order among equals)."""
        into = {s.memory_id: canonical for canonical, sources in self._merges.items() for s in sources}

        def depth(memory_id: str) -> int:
            seen = {memory_id}
            while memory_id in into and into[memory_id] not in seen:  # a cycle in a bad file ends here
                memory_id = into[memory_id]
                seen.add(memory_id)
            return len(seen) - 1

        return sorted(self._merges, key=depth, reverse=True)

    def _envelope(
        self, event: MemoryDeprecated | MemoriesArchived | MemoriesMerged | MemorySuperseded, *key: str
    ) -> Envelope:
        return new_envelope(event, event_id=deterministic_id(self.tenant, *key), tenant=self.tenant)


__all__ = ["IMPORTED", "ImportLinks", "check_state", "untouched"]
