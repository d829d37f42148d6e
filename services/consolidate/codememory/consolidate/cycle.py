"""One consolidation cycle for one tenant: the view in, the events that record its conclusions out.

Pure: no NATS, no clock of its own (``now`` comes in), deterministic event ids derived from the
inputs, so two replicas that run the same cycle produce the same events and LOG stores them once.
Order: restatements merge first (a merged memory takes no further part), then supersession among what
is current, links for what is new, decay and expiry, then lessons and summaries of finished sessions,
and last ``consolidation.completed`` with the counts and the LOG position the cycle saw.
"""

from __future__ import annotations

from collections import defaultdict

from codememory.consolidate.decay import adjustments, expiries
from codememory.consolidate.duplicates import Merge, find_merges, merge_reason
from codememory.consolidate.insights import Lesson
from codememory.consolidate.links import find_links
from codememory.consolidate.output import CHUNK, CycleOutput, lesson_event
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.session_cycle import session_events
from codememory.consolidate.supersession import find_supersessions
from codememory.consolidate.view import Remembered, TenantView
from codememory.events import (
    ConsolidationCompleted,
    ImportanceAdjustment,
    ImportanceDecayed,
    MemoriesArchived,
    MemoriesLinked,
    MemoriesMerged,
    MemoryLinks,
    MemorySource,
    MemorySuperseded,
    deterministic_id,
)
from codememory.memory.cues import has_cue, lead_in
from codememory.memory.kinds import DERIVED_TYPES
from codememory.memory.statements import is_question

COUNTS = ("merged", "superseded", "archived", "decayed", "insights", "summaries", "linked")


def _by_repo(memories: list[Remembered]) -> dict[str, list[Remembered]]:
    groups: dict[str, list[Remembered]] = defaultdict(list)
    for memory in memories:
        groups[memory.repo].append(memory)
    return groups


def _merge_events(out: CycleOutput, tenant: str, merges: list[Merge], policy: ConsolidationPolicy) -> None:
    for merge in merges:
        ids = tuple(m.memory_id for m in merge.merged)
        sources = tuple(
            MemorySource(
                memory_id=m.memory_id,
                session_id=m.session_id,
                created_at=m.created_at,
                memory_type=m.memory_type,
            )
            for m in merge.merged
        )
        event = MemoriesMerged(
            canonical_id=merge.canonical.memory_id,
            merged_ids=ids,
            sources=sources,
            importance=max(m.importance for m in (merge.canonical, *merge.merged)),
            similarity=round(merge.similarity, 4),
            cycle_id=out.cycle_id,
            reason=merge_reason(merge, policy),
        )
        out.add(
            deterministic_id(tenant, "merged", merge.canonical.memory_id, *ids), event, "merged", len(ids)
        )


def _repo_events(
    out: CycleOutput,
    view: TenantView,
    tenant: str,
    repo: str,
    group: list[Remembered],
    policy: ConsolidationPolicy,
) -> None:
    """Merges, supersessions, links and conventions among one repository's current memories."""
    new = [m for m in group if m.vector_seq > view.done_up_to]
    mergeable = [m for m in group if m.memory_type in policy.merge_types]
    merges = find_merges(
        [m for m in new if m.memory_type in policy.merge_types], mergeable, policy, view.apart
    )
    _merge_events(out, tenant, merges, policy)
    gone = {m.memory_id for merge in merges for m in merge.merged}
    group = [m for m in group if m.memory_id not in gone]
    new = [m for m in new if m.memory_id not in gone]
    superseded_now: set[str] = set()
    for found in find_supersessions(new, group, policy):
        superseded_now.add(found.old.memory_id)
        # the lessons drawn from the old rule go with it (a convention that no longer holds)
        lessons = [i for i in view.insights_of.get(found.old.memory_id, ()) if _active(view, i)]
        for memory_id, reason in [
            (found.old.memory_id, found.reason),
            *((i, "the rule it was drawn from was superseded") for i in lessons),
        ]:
            superseded = MemorySuperseded(
                memory_id=memory_id,
                superseded_by=found.new.memory_id,
                superseded_at=found.new.created_at,
                reason=reason,
                similarity=round(found.similarity, 4),
                cycle_id=out.cycle_id,
            )
            event_id = deterministic_id(tenant, "superseded", memory_id, found.new.memory_id)
            out.add(event_id, superseded, "superseded")
    unlinked = [m for m in new if m.memory_id not in view.links_done]
    links = find_links(unlinked, group, view.files.get(repo, set()), policy)
    items = [MemoryLinks(memory_id=k, neighbours=v[0], code=v[1]) for k, v in sorted(links.items())]
    for start in range(0, len(items), CHUNK):
        chunk = tuple(items[start : start + CHUNK])
        event_id = deterministic_id(tenant, "linked", out.cycle_id, *(link.memory_id for link in chunk))
        out.add(event_id, MemoriesLinked(links=chunk, cycle_id=out.cycle_id), "linked", len(chunk))
    for merge in merges:
        if not _convention(merge.canonical, superseded_now, policy):
            continue
        sessions = {m.session_id for m in (merge.canonical, *merge.merged) if m.session_id}
        if len(sessions) < 2:
            continue
        title, _, rest = merge.canonical.text.strip().partition("\n")
        title = title[len(lead_in(title, policy.address_cues)) :]  # the rule, not "reminder: " before it
        lesson = Lesson(
            kind="convention",
            title=title[:160],
            situation=f"stated in {len(sessions)} sessions",
            what_worked=rest.strip(),  # the title is the rule; a longer statement adds the rest once
            evidence=(merge.canonical.memory_id,),
            paths=merge.canonical.paths,
        )
        insight_id, insight = lesson_event(tenant, merge.canonical.session_id, repo, lesson, out.cycle_id)
        if insight_id not in view.derived:
            out.add(insight_id, insight, "insights")


def _active(view: TenantView, memory_id: str) -> bool:
    found = view.memories.get(memory_id)
    return found is not None and found.state == "active"


def _convention(canonical: Remembered, superseded_now: set[str], policy: ConsolidationPolicy) -> bool:
    """Whether a restated memory reads as a rule worth a lesson: stated, not a question, worded as a
    rule (``convention_cues``: "always", "never", "use" ...) and not superseded in this cycle; a
    restated task ("fix the type errors in a.py") is no convention."""
    return (
        canonical.memory_type in policy.stated_types
        and canonical.memory_id not in superseded_now
        and not is_question(canonical.text)
        and has_cue(canonical.text, policy.convention_cues)
    )


def _decay_events(
    out: CycleOutput, view: TenantView, tenant: str, now: float, policy: ConsolidationPolicy
) -> None:
    # what this cycle merged, which the view folds only after it: the merged leave recall (nothing to
    # decay), and each canonical memory was stated again at its latest source's time
    merges = [e for _, e in out.events if isinstance(e, MemoriesMerged)]
    gone = {memory_id for merge in merges for memory_id in merge.merged_ids}
    stated_again: dict[str, float] = {}
    for merge in merges:
        latest = max(source.created_at for source in merge.sources)
        stated_again[merge.canonical_id] = max(latest, stated_again.get(merge.canonical_id, 0.0))
    everything = [m for m in view.memories.values() if m.memory_id not in gone]
    moved = adjustments(everything, now, view.files, policy, stated_again)
    for start in range(0, len(moved), CHUNK):
        chunk = tuple(
            ImportanceAdjustment(memory_id=k, importance=v) for k, v in moved[start : start + CHUNK]
        )
        event_id = deterministic_id(tenant, "decayed", out.cycle_id, str(start))
        out.add(event_id, ImportanceDecayed(adjustments=chunk, cycle_id=out.cycle_id), "decayed", len(chunk))
    for expiry in expiries(everything, now, policy):
        for start in range(0, len(expiry.memory_ids), CHUNK):
            ids = expiry.memory_ids[start : start + CHUNK]
            archived = MemoriesArchived(memory_ids=ids, reason=expiry.reason, cycle_id=out.cycle_id)
            out.add(deterministic_id(tenant, "archived", *ids), archived, "archived", len(ids))


def run_cycle(
    view: TenantView,
    tenant: str,
    policy: ConsolidationPolicy,
    *,
    now: float,
    up_to_seq: int,
    trigger: str = "schedule",
) -> CycleOutput:
    out = CycleOutput(deterministic_id(tenant, "cycle", str(up_to_seq)))
    current = [
        m
        for m in view.memories.values()
        if m.state == "active" and m.vector is not None and m.memory_type not in DERIVED_TYPES
    ]
    for repo, group in _by_repo(current).items():
        _repo_events(out, view, tenant, repo, group, policy)
    _decay_events(out, view, tenant, now, policy)
    session_events(out, view, tenant, now, policy)
    counts = {k: out.counts.get(k, 0) for k in COUNTS}
    completed = ConsolidationCompleted(
        cycle_id=out.cycle_id,
        trigger="request" if trigger == "request" else "schedule",
        up_to_seq=up_to_seq,
        merged=counts["merged"],
        superseded=counts["superseded"],
        archived=counts["archived"],
        decayed=counts["decayed"],
        insights=counts["insights"],
        summaries=counts["summaries"],
        linked=counts["linked"],
    )
    out.add(deterministic_id(tenant, "completed", out.cycle_id, trigger), completed)
    return out
