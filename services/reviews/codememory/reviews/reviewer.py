"""The service's two judgements: an edit against the session's turns, a commit against the graph.

Both read the view as LOG left it just before the event judged (an edit) or at it (a commit), so any
replica, now or on replay, reaches the same finding, and the finding's id (a uuid5 of the tenant, the
kind and what was judged) is the same too: JetStream and the view keep one copy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from codememory.events import (
    CommitRecorded,
    CommitReviewed,
    ForgettingDetected,
    ToolObserved,
    deterministic_id,
)
from codememory.projection import LiveProjection
from codememory.reviews.commits import review_commit, review_id
from codememory.reviews.forgetting import Edit, Finding, detect
from codememory.reviews.view import ReviewsView

__all__ = ["Reviewer", "detection_id"]


def detection_id(tenant: str, session_id: str, edit_seq: int) -> str:
    return deterministic_id(tenant, "forgetting.detected", session_id, str(edit_seq))


class Reviewer:
    def __init__(self, live: LiveProjection[ReviewsView], *, commit_max_age_s: float = 0.0) -> None:
        self.live = live
        self._max_age = commit_max_age_s

    async def judge(
        self, tenant: str, session_id: str, edits: Sequence[Edit], seq: int | None = None
    ) -> Finding | None:
        """Whether one of ``edits`` undoes an earlier turn of the session, as of LOG before ``seq``
        (None: as of now; an edit the view already folded then counts as the current turn's)."""
        async with self.live.lock:
            view = self.live.projection
            session = view.tenants[tenant].sessions.get(session_id) if tenant in view.tenants else None
            if session is None:
                return None
            history, prompt, since = session.before(view.last_seq + 1 if seq is None else seq)
        return await asyncio.to_thread(_first, history, prompt, list(edits), since)

    async def forgetting(
        self, tenant: str, seq: int, event: ToolObserved, edits: Sequence[Edit]
    ) -> ForgettingDetected | None:
        """The event to record for a LOG edit at ``seq``, or None (nothing undone, or already recorded)."""
        ident = detection_id(tenant, event.session_id, seq)
        if ident in self._recorded(tenant):
            return None
        finding = await self.judge(tenant, event.session_id, edits, seq)
        if finding is None:
            return None
        return ForgettingDetected(
            session_id=event.session_id,
            agent=event.agent,
            cwd=event.cwd,
            repo=event.repo,
            branch=event.branch,
            user=event.user,
            detection_id=ident,
            path=finding.path,
            instruction=finding.instruction[:2000],
            instructed_turn=finding.turn,
            undone=finding.undone,
            tool_use_id=event.tool_use_id,
            edit_seq=seq,
            instruction_id=finding.instruction_id,
        )

    async def commit(
        self, tenant: str, seq: int, event: CommitRecorded, recorded_at: float
    ) -> CommitReviewed | None:
        """The review to record for a commit folded at ``seq``; None when old history or already recorded."""
        if self._max_age and event.authored_at and recorded_at - event.authored_at > self._max_age:
            return None
        if review_id(tenant, event.repo, event.sha) in self._recorded(tenant):
            return None
        view = self.live.projection
        # the view folds the code facts it deferred when asked for the graph: in the thread, off the loop
        return await asyncio.to_thread(lambda: review_commit(view.graph(tenant), tenant, event, seq))

    def _recorded(self, tenant: str) -> set[str]:
        view = self.live.projection
        return view.tenants[tenant].recorded if tenant in view.tenants else set()


def _first(history: list, prompt: str, edits: list[Edit], since: list[Edit]) -> Finding | None:  # type: ignore[type-arg]
    done: list[Edit] = list(since)
    for edit in edits:
        finding = detect(history, prompt, edit, done)
        if finding is not None:
            return finding
        done.append(edit)
    return None
