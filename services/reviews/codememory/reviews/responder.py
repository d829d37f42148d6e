"""The hook's question after an edit, over core NATS request-reply on ``cm.rpc.<tenant>.forgetting``.

The hook sends ``{"session_id", "edits": [{"path", "old", "new"}]}`` (or ``tool_input`` and ``path``,
the agent's own fields) right after an edit; one replica (queue group ``reviews``) judges it against the
session's turns as its view has them and replies ``{"context": text}``: empty when nothing was undone.
The hook waits only briefly and never blocks the agent on this (fail-open). Recording the finding is the
durable consumer's work, from LOG, so an answer here and an event there never disagree about ids.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import structlog
from faststream.nats import NatsMessage, NatsRouter
from faststream.params import NoCast

from codememory import subjects
from codememory.bus.app import raw_body
from codememory.reviews.edits import edits_from_input
from codememory.reviews.forgetting import Edit, message
from codememory.reviews.reviewer import Reviewer
from codememory.topology import REVIEWS

__all__ = ["forgetting_router", "request_edits"]

log = structlog.get_logger(__name__)
_MAX_EDITS = 16


def request_edits(request: dict[str, Any]) -> list[Edit]:
    """The edits a request names; malformed entries are left out."""
    raw = request.get("edits")
    if isinstance(raw, list):
        return [
            Edit(e["path"], e.get("old", "") or "", e.get("new", "") or "")
            for e in raw[:_MAX_EDITS]
            if isinstance(e, dict)
            and isinstance(e.get("path"), str)
            and e["path"]
            and isinstance(e.get("old", ""), str)
            and isinstance(e.get("new", ""), str)
        ]
    tool_input, path = request.get("tool_input"), request.get("path")
    if isinstance(tool_input, dict) and isinstance(path, str):
        return edits_from_input(tool_input, path)[:_MAX_EDITS]
    return []


def forgetting_router(reviewer: Callable[[], Reviewer | None]) -> NatsRouter:
    router = NatsRouter()

    @router.subscriber(
        subjects.FORGETTING_REQUESTS,
        queue=REVIEWS.name,
        decoder=raw_body,
        max_workers=4,
        title="reviews:forgetting",
        description="did this edit undo an instructed change of the session? JSON {context} out",
    )
    async def forgetting(body: NoCast[bytes], msg: NatsMessage) -> bytes:
        tenant = subjects.tenant_of(msg.raw_message.subject)
        running = reviewer()
        try:
            request = json.loads(body)
            session_id = request.get("session_id") if isinstance(request, dict) else None
            if running is None or not isinstance(session_id, str) or not session_id:
                return b'{"context":""}'
            finding = await running.judge(tenant, session_id, request_edits(request))
        except Exception as exc:  # a bad request or a failing judgement: no context, never an error
            log.warning("forgetting_request_failed", tenant=tenant, error=f"{type(exc).__name__}: {exc}")
            return b'{"context":""}'
        if finding is None:
            return b'{"context":""}'
        log.info("forgetting_answered", tenant=tenant, session_id=session_id, turn=finding.turn)
        reply = {"context": message(finding), "undone": list(finding.undone), "turn": finding.turn}
        return json.dumps(reply, ensure_ascii=False).encode()

    return router
