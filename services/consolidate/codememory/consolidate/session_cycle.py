"""Lessons and summaries of finished sessions: part of every cycle, and on their own at a session's end.

A session's end asks for its summary at once (the next SessionStart reads it), long before the next
full cycle; ``run_session_cycle`` writes only these, and records no ``consolidation.completed`` so
the next full cycle still sees every new memory. Pure, like ``cycle``.
"""

from __future__ import annotations

from collections.abc import Iterable

from codememory.consolidate.insights import corrections, finished, fixes, summary, summary_sources
from codememory.consolidate.output import CycleOutput, lesson_event
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.view import TenantView
from codememory.events import SessionSummarized, deterministic_id


def session_events(
    out: CycleOutput, view: TenantView, tenant: str, now: float, policy: ConsolidationPolicy
) -> None:
    """Lessons and a summary of each session that finished since it was last looked at."""
    for session in view.sessions.values():
        summary_id = deterministic_id(tenant, "summary", session.session_id)
        if summary_id in view.derived or not finished(session, now, policy):
            continue
        for lesson in (*fixes(session.steps, policy), *corrections(session.steps, policy)):
            insight_id, insight = lesson_event(tenant, session.session_id, session.repo, lesson, out.cycle_id)
            if insight_id not in view.derived:
                out.add(insight_id, insight, "insights")
        text = summary(session, policy)
        if not text:
            continue
        paths = tuple(dict.fromkeys(p for s in session.steps if s.kind == "edit" for p in s.paths))[:20]
        summarized = SessionSummarized(
            summary_id=summary_id,
            session_id=session.session_id,
            summary=text,
            repo=session.repo,
            paths=paths,
            # what it quotes first (erasing one of those erases it), then the rest of its steps
            memory_ids=_capped(summary_sources(session, policy), (s.event_id for s in session.steps)),
            cycle_id=out.cycle_id,
            ended_at=session.last_at,
        )
        out.add(summary_id, summarized, "summaries")


def _capped(quoted: tuple[str, ...], steps: Iterable[str], cap: int = 200) -> tuple[str, ...]:
    """Every quoted id, then the other steps' up to ``cap`` in all."""
    named = set(quoted)
    rest = [s for s in steps if s not in named]
    return (*quoted, *rest[: max(0, cap - len(quoted))])


def run_session_cycle(
    view: TenantView, tenant: str, policy: ConsolidationPolicy, *, now: float
) -> CycleOutput:
    """Only the lessons and summaries of finished sessions: what a session's end asks for at once.
    It records no ``consolidation.completed``, so the next full cycle still sees every new memory."""
    out = CycleOutput(deterministic_id(tenant, "sessions", str(now)))
    session_events(out, view, tenant, now, policy)
    return out


def unsummarized(view: TenantView, tenant: str, policy: ConsolidationPolicy, now: float) -> bool:
    """Whether a finished session of the tenant has no summary yet."""
    return any(
        finished(session, now, policy)
        and deterministic_id(tenant, "summary", session.session_id) not in view.derived
        for session in view.sessions.values()
    )
