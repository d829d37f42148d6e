"""Malformed input goes to the DLQ with the reason and nothing stops; an unreachable NATS spools."""

from __future__ import annotations

import asyncio
import json
import uuid

import nats


def _publish(url: str, subject: str, body: bytes, msg_id: str) -> None:
    async def go() -> None:
        nc = await nats.connect(url)
        await nc.jetstream().publish(subject, body, headers={"Nats-Msg-Id": msg_id})
        await nc.close()

    asyncio.run(go())


def _dlq(url: str) -> list[tuple[bytes, dict[str, str]]]:
    async def go() -> list[tuple[bytes, dict[str, str]]]:
        nc = await nats.connect(url)
        sub = await nc.jetstream().subscribe("cm.dlq.>", stream="DLQ", ordered_consumer=True)
        out = []
        try:
            while True:
                msg = await sub.next_msg(timeout=1)
                out.append((msg.data, dict(msg.headers or {})))
        except Exception:
            pass
        await nc.close()
        return out

    return asyncio.run(go())


def test_malformed_hook_message_is_dead_lettered_and_ingest_goes_on(stack) -> None:  # type: ignore[no-untyped-def]
    garbage = f"not json {uuid.uuid4()}".encode()
    _publish(stack.nats_url, "cm.hooks.local.claude.Broken", garbage, str(uuid.uuid4()))
    stack.wait_caught_up()
    dead = [h for body, h in _dlq(stack.nats_url) if body == garbage]
    assert dead and "MalformedHookMessageError" in dead[0]["CM-Reason"] and dead[0]["CM-Stream"] == "HOOKS"
    fact = f"after the garbage {uuid.uuid4().hex[:6]}"
    stack.hook(
        "claude",
        json.dumps(
            {"session_id": "s", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": fact}
        ).encode(),
    )
    stack.wait_caught_up()
    assert fact in json.dumps(stack.cli_json("recall", fact))


def test_dlq_list_shows_the_reason_and_redrive_sends_it_through_ingest_again(stack) -> None:  # type: ignore[no-untyped-def]
    garbage = f"still not json {uuid.uuid4()}".encode()
    subject = "cm.hooks.local.claude.Redriven"
    _publish(stack.nats_url, subject, garbage, str(uuid.uuid4()))
    stack.wait_caught_up()
    listed = [d for d in json.loads(stack.cli("dlq", "list", "--json").stdout) if d["subject"] == subject]
    assert len(listed) == 1 and listed[0]["service"] == "ingest"
    assert listed[0]["reason"].startswith("MalformedHookMessageError") and listed[0]["stream"] == "HOOKS"
    redriven = json.loads(stack.cli("dlq", "redrive", "--seq", str(listed[0]["seq"]), "--json").stdout)
    assert redriven == {"redriven": [listed[0]["seq"]]}
    stack.wait_caught_up()
    again = [d for d in json.loads(stack.cli("dlq", "list", "--json").stdout) if d["subject"] == subject]
    # ingest read it again through its redrive consumer (the cause is not fixed): parked anew, once
    assert len(again) == 1 and again[0]["seq"] != listed[0]["seq"]
    assert again[0]["reason"] == listed[0]["reason"] and again[0]["stream"] == "HOOKS"
    missing = stack.cli("dlq", "redrive", "--seq", "999999", check=False)
    assert missing.returncode == 1 and b"no dead letter" in missing.stderr


def test_hook_spools_when_nats_is_down_and_flushes_in_order(stack) -> None:  # type: ignore[no-untyped-def]
    down = {**stack.env, "CODEMEMORY_NATS_URL": "nats://127.0.0.1:9"}
    facts = [f"spooled fact {i} {uuid.uuid4().hex[:6]}" for i in range(3)]
    import subprocess
    import time

    from conftest_paths import BIN  # type: ignore[import-not-found]

    hook_log = stack.home / "logs" / "hook.log"
    # taken first: the stack's own flusher may send the spooled facts on before the third hook runs
    before = stack.wait_caught_up().log_last_seq
    spooled_before = hook_log.read_text().count("Connection refused; spooled") if hook_log.exists() else 0
    for fact in facts[:2]:
        payload = json.dumps(
            {"session_id": "sp", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": fact}
        ).encode()
        started = time.monotonic()
        result = subprocess.run(
            [str(BIN / "codememory"), "hook", "--agent", "claude"],
            input=payload,
            env=down,
            capture_output=True,
            timeout=30,
        )
        assert result.returncode == 0 and result.stdout == b"" and time.monotonic() - started < 3
    # spooled (the stack's own flusher, on its live server, may already have sent them on)
    assert hook_log.read_text().count("Connection refused; spooled") == spooled_before + 2
    payload = json.dumps(
        {"session_id": "sp", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": facts[2]}
    ).encode()
    assert stack.hook("claude", payload).returncode == 0
    # the stack's own flusher may hold the spool meanwhile: then the hook queued its event behind it
    deadline = time.monotonic() + 30
    while True:
        stack.wait_caught_up()
        events = [
            json.loads(line)
            for line in stack.cli("log", "--json", "--from", str(before + 1)).stdout.splitlines()
        ]
        prompts = [e["payload"]["prompt"] for e in events if e["payload"]["type"] == "prompt.submitted"]
        if len(prompts) >= len(facts) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert prompts == facts
