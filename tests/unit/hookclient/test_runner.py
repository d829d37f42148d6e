"""The hook's work end to end: real processes against a real nats-server, spooling, recovery, context."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.client import JetStreamContext

from codememory.hookclient import HookSettings, flush_spool, run_hook
from codememory.hookclient.message import build_message
from codememory.hookclient.spool import Spool
from codememory.hookclient.wire import NatsConnection
from codememory.runtime.natsd import NatsServer, free_port

Streams = tuple[Client, JetStreamContext]
SECRET = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
CONTEXT = "<codememory-context>the tests run with just test</codememory-context>"


def spooled(settings: HookSettings) -> list[dict[str, Any]]:
    path = Path(settings.spool_path)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def stop_event(n: int) -> bytes:
    return json.dumps({"session_id": "s", "hook_event_name": "Stop", "n": n}).encode()


async def test_process_publishes_and_the_message_reads_back(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    payload = json.loads(kit.sample("claude_PostToolUse_Bash.json"))
    payload["tool_response"]["stdout"] = f"export GITHUB_TOKEN={SECRET}\n"
    proc = await asyncio.to_thread(
        kit.run_process, "claude", json.dumps(payload).encode(), kit.env(tmp_path, hook_server.url)
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    [(subject, headers, body)] = await kit.stream_messages(js)
    assert subject == "cm.hooks.local.claude.PostToolUse"
    assert headers == {"Nats-Msg-Id": body["dedupe_key"]}
    assert re.fullmatch(r"[0-9a-f]{32}", body["dedupe_key"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", body["received_at"])
    assert (body["v"], body["agent"], body["event"], body["tenant"]) == (1, "claude", "PostToolUse", "local")
    assert body["trimmed"] == [] and isinstance(body["user"], str)
    assert SECRET not in json.dumps(body)
    assert body["payload"]["tool_input"] == payload["tool_input"]
    assert not Path(tmp_path / "spool" / "hooks.jsonl").exists()


async def test_every_sample_payload_is_published(
    settings: HookSettings, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    samples = sorted(kit.data.glob("*.json"))
    for path in samples:
        agent = path.name.split("_", 1)[0]
        assert await asyncio.to_thread(run_hook, agent, path.read_bytes(), settings) is None
    messages = await kit.stream_messages(js)
    assert len(messages) == len(samples)
    for path, (subject, _headers, body) in zip(samples, messages, strict=True):
        original = json.loads(path.read_bytes())
        assert subject.endswith("." + original["hook_event_name"]), path.name
        assert body["payload"]["hook_event_name"] == original["hook_event_name"]


async def test_huge_write_is_trimmed_to_fit(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    payload = json.loads(kit.sample("claude_PostToolUse_Write.json"))
    content = "x = 1  # padding\n" * 200_000
    payload["tool_input"]["content"] = content
    payload["tool_response"] = {
        "type": "create",
        "filePath": "/a.py",
        "content": content,
        "structuredPatch": [],
    }
    raw = json.dumps(payload).encode()
    assert len(raw) > 3_000_000
    proc = await asyncio.to_thread(kit.run_process, "claude", raw, kit.env(tmp_path, hook_server.url))
    assert proc.returncode == 0
    [(_subject, _headers, body)] = await kit.stream_messages(js)
    assert body["trimmed"] == ["tool_input.content", "tool_response.content"]
    assert "…[trimmed " in body["payload"]["tool_input"]["content"]


async def test_non_json_stdin_is_published_raw(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    proc = await asyncio.to_thread(
        kit.run_process, "codex", b"plain text, not JSON", kit.env(tmp_path, hook_server.url)
    )
    assert (proc.returncode, proc.stdout) == (0, b"")
    [(subject, _headers, body)] = await kit.stream_messages(js)
    assert subject == "cm.hooks.local.codex.unknown"
    assert body["payload"] == {"_raw": "plain text, not JSON"}


def test_nats_down_spools_fast_and_silently(tmp_path: Path, kit: Any) -> None:
    env = kit.env(tmp_path, f"nats://127.0.0.1:{free_port()}")
    started = time.monotonic()
    proc = kit.run_process("claude", kit.sample("claude_UserPromptSubmit.json"), env)
    assert time.monotonic() - started < 1.5
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    [record] = spooled(HookSettings(home=str(tmp_path)))
    assert record["subject"] == "cm.hooks.local.claude.UserPromptSubmit"
    assert record["msg_id"] == record["message"]["dedupe_key"]
    assert "spooled" in (tmp_path / "logs" / "hook.log").read_text()


def test_silent_server_spools_within_the_deadline(tmp_path: Path, kit: Any) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:  # accepts, never says INFO
        env = kit.env(tmp_path, f"nats://127.0.0.1:{listener.getsockname()[1]}")
        started = time.monotonic()
        proc = kit.run_process("claude", kit.sample("claude_Stop.json"), env)
        assert time.monotonic() - started < 1.5
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert len(spooled(HookSettings(home=str(tmp_path)))) == 1


def test_no_nats_url_spools(tmp_path: Path, kit: Any) -> None:
    proc = kit.run_process("gemini", kit.sample("gemini_SessionStart.json"), kit.env(tmp_path, None))
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert len(spooled(HookSettings(home=str(tmp_path)))) == 1


async def test_spool_is_flushed_in_order_when_nats_comes_back(tmp_path: Path, kit: Any) -> None:
    port = free_port()
    settings = HookSettings(home=str(tmp_path / "home"), nats_url=f"nats://127.0.0.1:{port}")
    for n in range(3):
        run_hook("claude", stop_event(n), settings)
    assert [r["message"]["payload"]["n"] for r in spooled(settings)] == [0, 1, 2]
    with NatsServer(tmp_path / "nats", port=port) as server:
        client = await nats.connect(server.url)
        js = client.jetstream()
        await js.add_stream(name="HOOKS", subjects=["cm.hooks.>"])
        env = kit.env(Path(settings.home), server.url)
        proc = await asyncio.to_thread(kit.run_process, "claude", stop_event(3), env)
        assert proc.returncode == 0
        proc = await asyncio.to_thread(kit.run_process, "claude", stop_event(4), env)
        messages = await kit.stream_messages(js)
        await client.close()
    assert [body["payload"]["n"] for _s, _h, body in messages] == [0, 1, 2, 3, 4]
    assert len({body["dedupe_key"] for _s, _h, body in messages}) == 5
    assert spooled(settings) == []


async def test_a_republished_message_is_stored_once(
    settings: HookSettings, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    message = build_message("claude", stop_event(1), tenant="local", max_field=16384)
    with NatsConnection.connect(str(settings.nats_url), 2.0) as conn:
        conn.publish(message.subject, message.data, {"Nats-Msg-Id": message.msg_id}, 2.0)
    Spool(settings.spool_path).append([message.to_record()])  # as if the ack had been lost
    await asyncio.to_thread(run_hook, "claude", stop_event(2), settings)
    messages = await kit.stream_messages(js)
    assert [body["payload"]["n"] for _s, _h, body in messages] == [1, 2]
    assert spooled(settings) == []


async def test_concurrent_hooks_with_a_backlog_lose_and_double_nothing(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    down = HookSettings(home=str(tmp_path / "home"), nats_url=f"nats://127.0.0.1:{free_port()}")
    for n in range(20):
        run_hook("claude", stop_event(n), down)
    env = kit.env(tmp_path / "home", hook_server.url)
    procs = [asyncio.to_thread(kit.run_process, "claude", stop_event(100 + n), env) for n in range(6)]
    assert all(p.returncode == 0 for p in await asyncio.gather(*procs))
    flush_spool(down.replace(nats_url=hook_server.url))  # a hook that found the spool busy queued
    numbers = [body["payload"]["n"] for _s, _h, body in await kit.stream_messages(js)]
    assert sorted(numbers) == list(range(20)) + list(range(100, 106))
    assert numbers[:20] == list(range(20))  # no hook overtook the backlog
    assert spooled(down) == []


def _backlog_then_hold_spool(settings: HookSettings) -> int:
    """Spool events 0, 1, 2 (NATS down), then take the spool's lock as another draining process would;
    close the returned fd to release it."""
    for n in range(3):
        run_hook("claude", stop_event(n), settings.replace(nats_url=None))
    fd = os.open(settings.spool_path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


async def test_a_hook_waits_for_a_short_drain_and_publishes_after_the_backlog(
    settings: HookSettings, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    held = _backlog_then_hold_spool(settings)
    asyncio.get_running_loop().call_later(0.1, os.close, held)
    await asyncio.to_thread(run_hook, "claude", stop_event(3), settings)
    assert [body["payload"]["n"] for _s, _h, body in await kit.stream_messages(js)] == [0, 1, 2, 3]
    assert spooled(settings) == []


async def test_a_hook_queues_behind_a_drain_that_holds_the_spool(
    settings: HookSettings, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    held = _backlog_then_hold_spool(settings)
    try:
        started = time.monotonic()
        await asyncio.to_thread(run_hook, "claude", stop_event(3), settings)
        waited = time.monotonic() - started
    finally:
        os.close(held)
    assert await kit.stream_messages(js) == []  # nothing overtook the backlog
    assert [r["message"]["payload"]["n"] for r in spooled(settings)] == [0, 1, 2, 3]
    assert waited < settings.hook_timeout_s + 0.5
    assert await asyncio.to_thread(flush_spool, settings) == 4
    assert [body["payload"]["n"] for _s, _h, body in await kit.stream_messages(js)] == [0, 1, 2, 3]


async def test_flush_spool_for_codememory_up(settings: HookSettings, js_client: Streams, kit: Any) -> None:
    _nc, js = js_client
    down = settings.replace(nats_url=None)
    for n in range(5):
        run_hook("cursor", stop_event(n), down)
    assert await asyncio.to_thread(flush_spool, settings) == 5
    assert len(await kit.stream_messages(js)) == 5
    assert flush_spool(settings) == 0


CONTEXT_CASES = [
    ("claude", "claude_UserPromptSubmit.json", {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit"}}),
    ("claude", "claude_SessionStart_startup.json", {"hookSpecificOutput": {"hookEventName": "SessionStart"}}),
    ("codex", "codex_UserPromptSubmit.json", {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit"}}),
    ("codex", "codex_SessionStart.json", {"hookSpecificOutput": {"hookEventName": "SessionStart"}}),
    ("gemini", "gemini_BeforeAgent.json", {"hookSpecificOutput": {"hookEventName": "BeforeAgent"}}),
    ("gemini", "gemini_SessionStart.json", {"hookSpecificOutput": {"hookEventName": "SessionStart"}}),
    ("cursor", "cursor_sessionStart_cli.json", {}),
    ("cursor", "cursor_beforeSubmitPrompt.json", {"continue": True}),
]


@pytest.mark.parametrize(("agent", "sample", "shape"), CONTEXT_CASES)
async def test_context_is_printed_in_the_agents_format(
    tmp_path: Path,
    hook_server: NatsServer,
    js_client: Streams,
    kit: Any,
    agent: str,
    sample: str,
    shape: dict[str, Any],
) -> None:
    nc, js = js_client
    requests: list[dict[str, Any]] = []

    async def gateway(msg: Msg) -> None:
        requests.append(json.loads(msg.data))
        await msg.respond(json.dumps({"context": CONTEXT}).encode())

    sub = await nc.subscribe("cm.rpc.local.context", cb=gateway)
    await nc.flush()
    proc = await asyncio.to_thread(
        kit.run_process, agent, kit.sample(sample), kit.env(tmp_path, hook_server.url)
    )
    await sub.unsubscribe()
    assert proc.returncode == 0
    output = json.loads(proc.stdout)
    if agent == "cursor":
        assert output == {**shape, "additional_context": CONTEXT}
    else:
        assert output == {"hookSpecificOutput": {**shape["hookSpecificOutput"], "additionalContext": CONTEXT}}
    payload = json.loads(kit.sample(sample))
    [request] = requests
    assert request["agent"] == agent and request["event"] == payload["hook_event_name"]
    assert request["budget_tokens"] == 1500
    assert request["session_id"] == payload.get("session_id", payload.get("conversation_id"))
    assert request.get("prompt") == payload.get("prompt")
    assert len(await kit.stream_messages(js)) == 1  # published before asking


async def test_no_responder_prints_nothing(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    _nc, js = js_client
    env = kit.env(tmp_path, hook_server.url)
    proc = await asyncio.to_thread(kit.run_process, "claude", kit.sample("claude_UserPromptSubmit.json"), env)
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert len(await kit.stream_messages(js)) == 1


async def test_silent_gateway_is_bounded_by_the_context_timeout(
    tmp_path: Path, hook_server: NatsServer, js_client: Streams, kit: Any
) -> None:
    nc, _js = js_client
    sub = await nc.subscribe("cm.rpc.local.context")  # receives, never answers
    await nc.flush()
    settings = HookSettings(home=str(tmp_path), nats_url=hook_server.url, context_timeout_s=0.2)
    started = time.monotonic()
    output = await asyncio.to_thread(run_hook, "claude", kit.sample("claude_UserPromptSubmit.json"), settings)
    assert output is None and time.monotonic() - started < 1.0
    await sub.unsubscribe()
