"""The ingest handler behind its FastStream subscriber, in memory (``TestNatsBroker``).

The same ``subscribe_durable`` wiring the service runs, with an in-memory event log and dead letters:
a good hook message becomes events, a malformed one (not JSON, nested thousands deep, a lone
surrogate) gets a typed rejection in the DLQ, and neither disturbs the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from faststream.nats import NatsBroker, NatsRouter, TestNatsBroker

from codememory.bus import InMemoryDeadLetters
from codememory.bus.durable import DurableSettings, subscribe_durable
from codememory.events import InMemoryEventLog, decode_envelope
from codememory.ingest.handler import IngestHandler
from codememory.topology import INGEST, Consumer, Service

MessageFactory = Callable[..., bytes]


def _broker(event_log: InMemoryEventLog, dead: InMemoryDeadLetters) -> NatsBroker:
    broker = NatsBroker()
    router = NatsRouter()

    def dead_letters(js: object, service: Service, consumer: Consumer) -> InMemoryDeadLetters:
        return dead

    subscribe_durable(
        router,
        INGEST,
        DurableSettings(batch=8),
        lambda js: IngestHandler(event_log),
        dead_letters=dead_letters,  # type: ignore[arg-type]
        jetstream=lambda: None,  # type: ignore[arg-type, return-value]
    )
    broker.include_router(router)
    return broker


async def test_good_and_bad_hook_messages_are_settled_apart(message: MessageFactory) -> None:
    build_message = message
    event_log, dead = InMemoryEventLog(), InMemoryDeadLetters()
    broker = _broker(event_log, dead)
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "use ruff, not flake8"}
    deep = build_message("claude", {"x": "a"}).replace(b'"a"', b"[" * 5000 + b"]" * 5000)
    lone = build_message("claude", {"prompt": "\ud800 lone"}, dedupe_key="f" * 32)  # json.dumps: "\\ud800"
    async with TestNatsBroker(broker) as test_broker:
        await test_broker.publish(build_message("claude", prompt), "cm.hooks.local.claude.UserPromptSubmit")
        await test_broker.publish(b"not json", "cm.hooks.local.claude.x")
        await test_broker.publish(deep, "cm.hooks.local.claude.PostToolUse")
        await test_broker.publish(lone, "cm.hooks.local.claude.UserPromptSubmit")
    events = [decode_envelope(record.data).payload for record in event_log.records]
    assert any(getattr(e, "prompt", "") == "use ruff, not flake8" for e in events)
    reasons = [reason for _, reason in dead.parked]
    assert len(reasons) == 3 and all(r.startswith("MalformedHookMessageError") for r in reasons)
    assert "nested too deep" in reasons[1]
    assert json.loads(build_message("claude", prompt))["payload"]["prompt"] == "use ruff, not flake8"
