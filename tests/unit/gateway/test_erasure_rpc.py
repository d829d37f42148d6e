"""Erase in the gateway: which events it appends, in which order with the keys, and what it refuses."""

from __future__ import annotations

import uuid

import pytest
from erasurekit import Points, applied  # type: ignore[import-not-found]

from codememory.events import (
    DataErased,
    InMemoryEventLog,
    MemoryForgotten,
    MemoryScope,
    MemoryStored,
    PromptSubmitted,
    decode_envelope,
    encode_envelope,
    new_envelope,
)
from codememory.gateway.erasure import Eraser, SharesSessionKey
from codememory.sealing import ERASED, Record, Sealer


async def test_erasing_a_user_forgets_their_memories_then_destroys_keys(sealer: Sealer) -> None:
    log = InMemoryEventLog()
    memory = MemoryStored(memory_id=str(uuid.uuid4()), text="alice's note", scope=MemoryScope(user="alice"))
    prompt = PromptSubmitted(session_id="s1", agent="claude", user="alice", prompt="alice's prompt")
    await log.append([new_envelope(e, event_id=str(uuid.uuid4()), tenant="t") for e in (memory, prompt)])
    prompt_memory = {"tenant": "t", "memory_id": "p-1", "session_id": "s1"}  # the prompt as a memory
    other_tenant = {"tenant": "u", "memory_id": "p-2", "session_id": "s1"}
    eraser = Eraser(log, sealer, applied, 1.0, lambda: Points([prompt_memory, other_tenant]))  # type: ignore[arg-type, return-value]
    response = await eraser.erase("t", "user", "alice")
    assert set(response.memory_ids) == {memory.memory_id, "p-1"} and list(response.session_ids) == ["s1"]
    appended = [decode_envelope(r.data) for r in log.records[2:]]
    forgotten = [e.payload for e in appended if isinstance(e.payload, MemoryForgotten)]
    assert {f.memory_id for f in forgotten} == {memory.memory_id, "p-1"}
    assert isinstance(appended[-1].payload, DataErased)
    assert "alice" not in encode_envelope(appended[-1]).decode()  # the user's id is personal too
    assert decode_envelope(log.records[0].data).payload.text == ERASED  # type: ignore[union-attr]
    before = len(log.records)
    again = await eraser.erase("t", "user", "alice")  # nothing left to destroy: only the record of trying
    assert again.keys_destroyed == 0 and not again.memory_ids
    assert [type(decode_envelope(r.data).payload) for r in log.records[before:]] == [DataErased]


async def test_one_memory_of_a_session_is_erased_and_the_rest_of_the_session_stays(sealer: Sealer) -> None:
    log = InMemoryEventLog()
    prompts = [PromptSubmitted(session_id="s1", agent="claude", prompt=f"prompt {i}") for i in range(3)]
    await log.append([new_envelope(p, event_id=f"e{i}", tenant="t") for i, p in enumerate(prompts)])
    points = Points([{"tenant": "t", "memory_id": f"e{i}", "session_id": "s1"} for i in range(3)])
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    response = await eraser.erase("t", "memory", "e1")
    assert list(response.memory_ids) == ["e1"] and not response.session_ids and response.keys_destroyed == 1
    texts = [getattr(decode_envelope(r.data).payload, "prompt", None) for r in log.records]
    assert texts[:3] == ["prompt 0", ERASED, "prompt 2"]
    erased = decode_envelope(log.records[-1].data).payload
    assert isinstance(erased, DataErased) and erased.memory_ids == ("e1",) and erased.session_ids == ()
    again = await eraser.erase("t", "memory", "e1")  # punctured already: nothing more to destroy
    assert again.keys_destroyed == 0


async def test_a_memory_of_a_session_sealed_before_per_event_keys_is_refused(
    sealer: Sealer, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = InMemoryEventLog()
    with monkeypatch.context() as older:  # an older codememory: one key for the whole session
        older.setattr(Record, "per_event", property(lambda self: False))
        prompt = PromptSubmitted(session_id="s1", agent="claude", prompt="a prompt")
        await log.append([new_envelope(prompt, event_id="e1", tenant="t")])
    points = Points([{"tenant": "t", "memory_id": "e1", "session_id": "s1"}])
    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    with pytest.raises(SharesSessionKey, match="erase --session s1"):
        await eraser.erase("t", "memory", "e1")
    assert len(log.records) == 1  # nothing appended
    assert decode_envelope(log.records[0].data).payload.prompt == "a prompt"  # type: ignore[union-attr]


async def test_a_memory_of_another_tenant_is_not_reached(sealer: Sealer) -> None:
    log = InMemoryEventLog()
    memory = MemoryStored(memory_id=str(uuid.uuid4()), text="theirs")
    await log.append([new_envelope(memory, event_id="e1", tenant="u")])
    eraser = Eraser(log, sealer, applied, 1.0, lambda: Points([]))  # type: ignore[arg-type, return-value]
    response = await eraser.erase("t", "memory", memory.memory_id)
    assert response.keys_destroyed == 0
    assert decode_envelope(log.records[0].data).payload.text == "theirs"  # type: ignore[union-attr]


async def test_what_is_written_while_erasing_is_caught_by_the_second_pass(sealer: Sealer) -> None:
    log = InMemoryEventLog()
    first = PromptSubmitted(session_id="s1", agent="claude", user="alice", prompt="before")
    await log.append([new_envelope(first, event_id="p1", tenant="t")])
    points = Points([{"tenant": "t", "memory_id": "p1", "session_id": "s1"}])
    written: list[bytes] = []

    async def applied(seq: int, timeout: float) -> bool:
        if not written:  # alice types in a new session while her erasure runs
            during = PromptSubmitted(session_id="s2", agent="claude", user="alice", prompt="during")
            written.append(encode_envelope(new_envelope(during, event_id="p2", tenant="t")))
            points.payloads.append({"tenant": "t", "memory_id": "p2", "session_id": "s2"})
        return True

    eraser = Eraser(log, sealer, applied, 1.0, lambda: points)  # type: ignore[arg-type, return-value]
    await eraser.erase("t", "user", "alice")
    forgotten = {
        e.payload.memory_id
        for e in (decode_envelope(r.data) for r in log.records)
        if isinstance(e.payload, MemoryForgotten)
    }
    assert forgotten == {"p1", "p2"}
    assert decode_envelope(written[0]).payload.prompt == ERASED  # type: ignore[union-attr]
