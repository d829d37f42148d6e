"""Context for hooks over core NATS request-reply on ``cm.rpc.<tenant>.context``.

The hook process already holds a NATS connection (it just published its event), so it asks for
session context on the same socket instead of paying for a gRPC client. Replies are JSON
``{"context": "..."}``; any failure replies with an empty context so the hook fails open.
"""

from __future__ import annotations

import json

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from codememory.gateway.core import GatewayCore

log = structlog.get_logger(__name__)


async def serve_context_requests(nc: Client, core: GatewayCore, *, default_budget: int) -> Subscription:
    async def handle(msg: Msg) -> None:
        tenant = msg.subject.split(".")[2]
        text = ""
        try:
            body = json.loads(msg.data or b"{}")
            budget = int(body.get("budget_tokens") or default_budget)
            ctx = await core.context(
                tenant,
                repo=str(body.get("repo", "")),
                branch=str(body.get("branch", "")),
                cwd=str(body.get("cwd", "")),
                session_id=str(body.get("session_id", "")),
                prompt=str(body.get("prompt", "")),
                budget_tokens=max(100, min(budget, 20_000)),
            )
            text = ctx.text
        except Exception:
            log.exception("context_request_failed", tenant=tenant)
        if msg.reply:
            await msg.respond(json.dumps({"context": text}).encode())

    return await nc.subscribe("cm.rpc.*.context", queue="gateway", cb=handle)
