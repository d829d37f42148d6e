"""Context injection: the request sent to the gateway and the output each agent reads."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.client import JetStreamContext

from codememory.hookclient.context import (
    context_request,
    context_subject,
    fetch_context,
    format_output,
    is_context_event,
)
from codememory.hookclient.wire import NatsConnection
from codememory.runtime.natsd import NatsServer

TEXT = "<codememory-context>remember: run just test</codememory-context>"


@pytest.mark.parametrize(
    ("agent", "event", "expected"),
    [
        ("claude", "SessionStart", True),
        ("claude", "UserPromptSubmit", True),
        ("claude", "PostToolUse", False),
        ("codex", "UserPromptSubmit", True),
        ("cursor", "sessionStart", True),
        ("cursor", "beforeSubmitPrompt", True),
        ("cursor", "SessionStart", False),
        ("gemini", "BeforeAgent", True),
        ("gemini", "SessionStart", True),
        ("gemini", "AfterAgent", False),
        ("windsurf", "SessionStart", False),
    ],
)
def test_context_events(agent: str, event: str, expected: bool) -> None:
    assert is_context_event(agent, event) is expected


def _hso(event: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": TEXT}}


@pytest.mark.parametrize(
    ("agent", "event", "expected"),
    [
        ("claude", "UserPromptSubmit", _hso("UserPromptSubmit")),
        ("claude", "SessionStart", _hso("SessionStart")),
        ("codex", "SessionStart", _hso("SessionStart")),
        ("gemini", "BeforeAgent", _hso("BeforeAgent")),
        ("cursor", "sessionStart", {"additional_context": TEXT}),
        ("cursor", "beforeSubmitPrompt", {"continue": True, "additional_context": TEXT}),
    ],
)
def test_output_format_per_agent(agent: str, event: str, expected: dict[str, Any]) -> None:
    line = format_output(agent, event, TEXT)
    assert line is not None and json.loads(line) == expected


def test_no_output_for_empty_context_or_other_events() -> None:
    assert format_output("claude", "UserPromptSubmit", "  ") is None
    assert format_output("claude", "PostToolUse", TEXT) is None


def test_request_fields() -> None:
    body = {
        "agent": "cursor",
        "event": "beforeSubmitPrompt",
        "repo": "r",
        "repo_root": "/src/r",
        "branch": "main",
        "payload": {"conversation_id": "c1", "prompt": "fix it", "workspace_roots": ["/src/r"]},
    }
    assert context_request(body) == {
        "agent": "cursor",
        "event": "beforeSubmitPrompt",
        "session_id": "c1",
        "cwd": "/src/r",
        "repo": "r",
        "branch": "main",
        "prompt": "fix it",
        "budget_tokens": 1500,
    }
    claude = {"agent": "claude", "event": "SessionStart", "payload": {"session_id": "s", "cwd": "/w"}}
    request = context_request(claude)
    assert request["session_id"] == "s" and request["cwd"] == "/w" and "prompt" not in request
    assert "source" not in request
    claude["payload"] = {"session_id": "s", "cwd": "/w", "source": "resume"}
    assert context_request(claude)["source"] == "resume"  # the gateway keeps what a resumed session had


async def test_fetch_context_from_a_responder(
    hook_server: NatsServer, js_client: tuple[Client, JetStreamContext]
) -> None:
    nc, _js = js_client
    seen: list[dict[str, Any]] = []

    async def answer(msg: Msg) -> None:
        seen.append(json.loads(msg.data))
        await msg.respond(json.dumps({"context": TEXT}).encode())

    sub = await nc.subscribe(context_subject("local"), cb=answer)
    await nc.flush()
    # generous deadlines: on a loaded 2-core CI machine the responder's loop can be slow to answer
    with NatsConnection.connect(hook_server.url, 5.0) as conn:
        text = await asyncio.to_thread(fetch_context, conn, "local", {"agent": "claude", "prompt": "p"}, 5.0)
    assert text == TEXT
    assert seen == [{"agent": "claude", "prompt": "p"}]
    await sub.unsubscribe()


async def test_fetch_context_fails_open(
    hook_server: NatsServer, js_client: tuple[Client, JetStreamContext]
) -> None:
    nc, _js = js_client

    async def garbage(msg: Msg) -> None:
        await msg.respond(b"not json")

    with NatsConnection.connect(hook_server.url, 2.0) as conn:
        assert await asyncio.to_thread(fetch_context, conn, "nobody", {}, 0.5) == ""  # no responders
        assert fetch_context(conn, "local", {}, 0.0) == ""  # context disabled
        sub = await nc.subscribe(context_subject("garbage"), cb=garbage)
        await nc.flush()
        assert await asyncio.to_thread(fetch_context, conn, "garbage", {}, 0.5) == ""
        await sub.unsubscribe()
