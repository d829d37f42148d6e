"""The hooks' context responder: a FastStream subscriber that always answers, with context or empty."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nats
from faststream.nats import NatsBroker, TestNatsBroker
from livegateway import running_gateway  # type: ignore[import-not-found]

from codememory import subjects
from codememory.gateway.responder import context_router
from codememory.recall import ContextRequest
from codememory.runtime.natsd import NatsServer


@dataclass
class Found:
    text: str


class FakeCore:
    def __init__(self, fail: bool = False) -> None:
        self.asked: list[tuple[ContextRequest, bool]] = []
        self._fail = fail

    async def context(self, request: ContextRequest, *, resumed: bool = False) -> Found:
        if self._fail:
            raise RuntimeError("recall broke")
        self.asked.append((request, resumed))
        return Found(f"context for {request.tenant}")


async def _ask(core: Any, body: bytes, tenant: str = "alpha") -> dict[str, Any]:
    broker = NatsBroker()
    broker.include_router(context_router(lambda: core, default_budget=1500))
    async with TestNatsBroker(broker) as test_broker:
        reply = await test_broker.request(body, subjects.context_request(tenant))
        decoded: dict[str, Any] = json.loads(reply.body)
        return decoded


async def test_the_tenant_comes_from_the_subject_and_the_budget_is_bounded() -> None:
    core = FakeCore()
    body = json.dumps({"repo": "api", "prompt": "fix login", "budget_tokens": 10**9, "tenant": "evil"})
    assert await _ask(core, body.encode(), tenant="beta") == {"context": "context for beta"}
    [(asked, _)] = core.asked
    assert asked.tenant == "beta" and asked.repo == "api" and asked.prompt == "fix login"
    assert asked.budget_tokens == 20_000


async def test_only_a_resumed_start_asks_for_the_session_record_to_be_kept() -> None:
    core = FakeCore()
    for source in ("resume", "startup", "compact", ""):
        await _ask(core, json.dumps({"session_id": "s1", "source": source}).encode())
    assert [resumed for _, resumed in core.asked] == [True, False, False, False]


async def test_every_failure_answers_an_empty_context() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    for core, body in (
        (FakeCore(), b"{not json"),
        (FakeCore(), b"[1]"),
        (FakeCore(), deep),
        (FakeCore(fail=True), b"{}"),
        (None, b"{}"),
    ):
        assert await _ask(core, body) == {"context": ""}


async def test_a_running_gateway_answers_hooks_over_nats(nats_server: NatsServer, tmp_path: Path) -> None:
    async with running_gateway(nats_server.url, tmp_path / "gw") as gateway:
        await gateway.store("we decided to validate tokens in the auth middleware")
        nc = await nats.connect(nats_server.url)
        try:
            request = json.dumps({"prompt": "where do we validate tokens", "session_id": "s1"}).encode()
            reply = json.loads(
                (await nc.request(subjects.context_request("alpha"), request, timeout=10)).data
            )
            other = json.loads((await nc.request(subjects.context_request("beta"), request, timeout=10)).data)
        finally:
            await nc.close()
    assert "validate tokens in the auth middleware" in reply["context"]
    assert other == {"context": ""}  # another tenant sees nothing
