"""Context for hooks over core NATS request-reply on ``cm.rpc.<tenant>.context``: a FastStream subscriber.

The hook process already holds a NATS connection (it just published its event), so it asks for
session context on the same socket instead of paying for a gRPC client. Every gateway replica
subscribes in the queue group ``gateway``, so one of them answers each request. Replies are JSON
``{"context": "..."}``; any failure (no gateway started yet, a bad request, a failing recall) replies
with an empty context so the hook fails open. The tenant is the subject's tenant token.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import structlog
from faststream.nats import NatsMessage, NatsRouter
from faststream.params import NoCast

from codememory import subjects
from codememory.bus.app import raw_body
from codememory.gateway.core import GatewayCore
from codememory.recall import ContextRequest
from codememory.topology import GATEWAY

log = structlog.get_logger(__name__)

MIN_BUDGET, MAX_BUDGET = 100, 20_000
RESUMED = "resume"  # a session start's source when the agent resumed a conversation it kept


def reply(text: str) -> bytes:
    return json.dumps({"context": text}).encode()


def context_router(core: Callable[[], GatewayCore | None], *, default_budget: int) -> NatsRouter:
    """``core`` gives the gateway's core once it has started (None before: empty context)."""
    router = NatsRouter()

    @router.subscriber(
        subjects.CONTEXT_REQUESTS,
        queue=GATEWAY.name,
        decoder=raw_body,
        max_workers=4,
        title="gateway:context",
        description="session context for a hook: JSON request in, JSON {context} out (core request-reply)",
    )
    async def context(body: NoCast[bytes], message: NatsMessage) -> bytes:
        tenant = subjects.tenant_of(message.raw_message.subject)
        try:
            gateway = core()
            if gateway is None:
                return reply("")
            request = json.loads(body or b"{}")
            if not isinstance(request, dict):
                raise ValueError("the request is not a JSON object")
            budget = int(request.get("budget_tokens") or default_budget)
            asked = ContextRequest(
                tenant=tenant,
                repo=str(request.get("repo", "")),
                branch=str(request.get("branch", "")),
                cwd=str(request.get("cwd", "")),
                session_id=str(request.get("session_id", "")),
                prompt=str(request.get("prompt", "")),
                budget_tokens=max(MIN_BUDGET, min(budget, MAX_BUDGET)),
            )
            found = await gateway.context(asked, resumed=request.get("source") == RESUMED)
            return reply(found.text)
        except Exception:
            log.exception("context_request_failed", tenant=tenant)
            return reply("")

    return router
