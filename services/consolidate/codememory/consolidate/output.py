"""What a consolidation cycle concludes: its events with their ids, and a count of each kind.

Shared by the full cycle (``cycle``) and the session-only pass (``session_cycle``), which both write
lessons as ``insight.derived`` events with ids derived from their evidence.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from codememory.consolidate.insights import Lesson
from codememory.events import Event, InsightDerived, deterministic_id

CHUNK = 500  # memories named by one event at most (an event stays well under NATS's payload limit)


@dataclass
class CycleOutput:
    cycle_id: str
    events: list[tuple[str, Event]] = field(default_factory=list)  # (event id, event)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, event_id: str, event: Event, count: str = "", n: int = 1) -> None:
        self.events.append((event_id, event))
        if count:
            self.counts[count] += n


def lesson_event(tenant: str, session_id: str, repo: str, lesson: Lesson, cycle_id: str) -> tuple[str, Event]:
    insight_id = deterministic_id(tenant, "insight", lesson.kind, *lesson.evidence)
    event = InsightDerived(
        insight_id=insight_id,
        kind=lesson.kind,
        title=lesson.title,
        situation=lesson.situation,
        what_worked=lesson.what_worked,
        evidence_ids=lesson.evidence,
        session_id=session_id,
        repo=repo,
        paths=lesson.paths,
        cycle_id=cycle_id,
    )
    return insight_id, event
