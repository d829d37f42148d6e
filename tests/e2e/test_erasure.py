"""Erasure end to end on a real stack: two users' memories, one user and one memory erased, and one
prompt of an agent session erased while the session's other prompts stay. In a third session the
consolidate service draws a lesson and a summary from a correcting prompt and a tool call (sent
before and after it ran); erasing that prompt and that call erases the lesson, the summary and the
call's ``pre`` event too.

After ``codememory erase`` nothing that can be read holds the erased text: not recall, export or
``codememory log``, not a raw read of LOG's messages, not the bytes of the NATS store directory (what a
backup of LOG copies), not the gateway's index once replay has rebuilt it. Everything else opens with
the keys, and replay rebuilds a projection whose digest equals the live one.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import nats
import pytest

from codememory.events import MemoryEmbedded, decode_envelope
from codememory.events.codec import install_sealer
from codememory.sealing import ERASED, FileKeyStore, Sealer
from codememory.v1 import erasure_pb2, erasure_pb2_grpc
from codememory.v1 import memory_pb2 as pb
from conftest import BIN, Stack, launch, shutdown  # type: ignore[import-not-found]

RUN = uuid.uuid4().hex[:8]
ALICE = [f"alice keeps her spare key under the blue flowerpot {RUN}", f"alice banks with Northwind {RUN}"]
BOB_KEPT = f"bob prefers tabs over spaces in the parser {RUN}"
BOB_GONE = f"bob's home address is 12 Elm Street {RUN}"
ALICE_PROMPT = f"Remember: alice's doctor appointment is on Tuesday {RUN}"
BOB_PROMPTS = [
    f"Keep the retry budget of the uploader at three {RUN}",
    f"My sister's birthday party is at the lake house on the 12th {RUN}",
    f"Rename the parser module to grammar {RUN}",
]
BOB_PROMPT_GONE = BOB_PROMPTS[1]
ZEBRA, OCELOT = f"zebra{RUN}", f"ocelot{RUN}"  # in the correcting prompt and the tool call: each erased
CORRECTION = f"No, don't read my files; instead ask me for the {ZEBRA} password each time"
COMMAND = f"cat ~/notes/{OCELOT}.txt"


def _hook(stack: Stack, session: str, prompt: str, user: str, **fields: object) -> None:
    hook = {"session_id": session, "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    hook |= fields
    subprocess.run(
        [str(BIN / "codememory"), "hook", "--agent", "claude"],
        input=json.dumps(hook).encode(),
        env={**stack.env, "USER": user},
        check=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def erased(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, dict[str, str]]]:
    stack = launch(tmp_path_factory.mktemp("erasure"))
    try:
        stub, meta = stack.stub(), (("authorization", f"Bearer {stack.token()}"),)
        ids: dict[str, str] = {}
        stored = [(ALICE[0], "alice", "sa1"), (ALICE[1], "alice", "sa2"), (BOB_KEPT, "bob", "sb1")]
        for text, user, session in [*stored, (BOB_GONE, "bob", "sb1")]:
            request = pb.StoreRequest(text=text, scope=pb.Scope(user=user, session_id=session))
            ids[text] = stub.Store(request, metadata=meta, timeout=30).memory_id
        _hook(stack, "sa-hook", ALICE_PROMPT, "alice")
        for prompt in BOB_PROMPTS:
            _hook(stack, "sb-hook", prompt, "bob")
        stack.wait_caught_up(timeout=120)
        for text in (BOB_KEPT, *BOB_PROMPTS):
            _wait_embedded(stack, text)
        before = [m.text for m in stack.stub().Export(pb.ExportRequest(), metadata=meta, timeout=30)]
        assert set(ALICE) <= set(before) and any("doctor appointment" in t for t in before)  # all there
        stack.cli("erase", "--user", "alice", "--yes")
        eraser = erasure_pb2_grpc.ErasureServiceStub(grpc.insecure_channel(stack.grpc_address))
        gone = eraser.Erase(erasure_pb2.EraseRequest(memory_id=ids[BOB_GONE]), metadata=meta, timeout=30)
        assert list(gone.memory_ids) == [ids[BOB_GONE]] and gone.keys_destroyed == 1
        exported = stub.Export(pb.ExportRequest(), metadata=meta, timeout=30)
        ids |= {m.text: m.id for m in exported if m.text in BOB_PROMPTS}
        one = json.loads(stack.cli("erase", "--memory", ids[BOB_PROMPT_GONE], "--yes", "--json").stdout)
        assert one["memory_ids"] == [ids[BOB_PROMPT_GONE]] and one["keys_destroyed"] == 1
        assert one["session_ids"] == []  # the session itself stays
        ids |= _derive_and_erase(stack)
        stack.wait_caught_up(timeout=60)
        yield stack, ids
    finally:
        shutdown(stack)


def _derive_and_erase(stack: Stack) -> dict[str, str]:
    """A session with a tool call and a correction, consolidated into a lesson and a summary; then the
    prompt and the call are erased (each by its memory id) and what repeats them goes too."""
    call = {"tool_name": "Bash", "tool_input": {"command": COMMAND}, "tool_use_id": f"toolu_{RUN}"}
    _hook(stack, "sc-hook", "", "bob", hook_event_name="PreToolUse", **call)
    done = {"stdout": "three lines", "stderr": "", "interrupted": False}
    _hook(stack, "sc-hook", "", "bob", hook_event_name="PostToolUse", tool_response=done, **call)
    _hook(stack, "sc-hook", CORRECTION, "bob")
    _hook(stack, "sc-hook", "", "bob", hook_event_name="SessionEnd", reason="exit")
    stack.wait_caught_up(timeout=60)
    stub, meta = stack.stub(), (("authorization", f"Bearer {stack.token()}"),)
    report = stack.cli_json("consolidate")
    assert report["insights"] >= 1 and report["summaries"] >= 1, report
    mine = [
        m
        for m in stub.Export(pb.ExportRequest(), metadata=meta, timeout=30)
        if m.scope.session_id == "sc-hook"
    ]
    derived = {m.type: m.id for m in mine if m.type in ("insight", "summary") and ZEBRA in m.text}
    assert set(derived) == {"insight", "summary"}, [(m.type, m.text) for m in mine]
    prompt = next(m.id for m in mine if m.text == CORRECTION)
    tool = next(m.id for m in mine if m.type == "observation" and OCELOT in m.text)
    erased = json.loads(stack.cli("erase", "--memory", prompt, "--yes", "--json").stdout)
    assert set(erased["memory_ids"]) == {prompt, *derived.values()}, erased  # the lesson and summary too
    erased = json.loads(stack.cli("erase", "--memory", tool, "--yes", "--json").stdout)
    assert erased["memory_ids"] == [tool] and erased["keys_destroyed"] == 2  # its leaf and its pre event's
    return {CORRECTION: prompt, COMMAND: tool, **derived}


def _wait_embedded(stack: Stack, text: str) -> None:
    stub, meta = stack.stub(), (("authorization", f"Bearer {stack.token()}"),)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        hits = stub.Recall(pb.RecallRequest(query=text, limit=5), metadata=meta, timeout=10).hits
        if any(h.memory.text == text and h.score.dense > 0 for h in hits):
            return
        time.sleep(0.2)
    raise AssertionError("never embedded")


def _erased_texts() -> list[str]:
    return [*ALICE, BOB_GONE, ALICE_PROMPT, BOB_PROMPT_GONE, ZEBRA, OCELOT]


def _kept_texts() -> list[str]:
    return [BOB_KEPT, *(p for p in BOB_PROMPTS if p != BOB_PROMPT_GONE)]


async def _raw_log(stack: Stack) -> list[bytes]:
    nc = await nats.connect(stack.nats_url)
    try:
        js = nc.jetstream()
        last = (await js.stream_info("LOG")).state.last_seq
        return [(await js.get_msg("LOG", seq)).data or b"" for seq in range(1, last + 1)]
    finally:
        await nc.close()


def test_recall_export_and_log_hold_only_what_was_kept(erased: tuple[Stack, dict[str, str]]) -> None:
    stack, _ = erased
    stub, meta = stack.stub(), (("authorization", f"Bearer {stack.token()}"),)
    exported = [m.text for m in stub.Export(pb.ExportRequest(), metadata=meta, timeout=30)]
    assert set(_kept_texts()) <= set(exported) and not [
        t for t in _erased_texts() for e in exported if t in e
    ]
    for text in _kept_texts():  # the rest of the erased prompt's session is still recalled
        hits = stub.Recall(pb.RecallRequest(query=text, limit=5), metadata=meta, timeout=10).hits
        assert hits and hits[0].memory.text == text
    for text in _erased_texts():
        hits = stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta, timeout=10).hits
        assert all(text not in h.memory.text for h in hits)
    log = stack.cli("log", "--json").stdout.decode()
    assert all(t in log for t in _kept_texts()) and ERASED in log
    assert not [t for t in _erased_texts() if t in log]


def test_raw_log_and_store_files_hold_no_erased_text(erased: tuple[Stack, dict[str, str]]) -> None:
    stack, _ = erased
    raw = asyncio.run(_raw_log(stack))
    blob = b"\n".join(raw)
    assert BOB_KEPT.encode() not in blob  # sealed at rest, like everything personal
    for text in _erased_texts():
        assert text.encode() not in blob
    previous = install_sealer(Sealer(FileKeyStore(stack.home / "keys")))
    try:
        envelopes = [decode_envelope(data) for data in raw]
    finally:
        install_sealer(previous)
    opened = json.dumps([str(e.payload) for e in envelopes])
    assert all(t in opened for t in _kept_texts()) and ERASED in opened  # the rest opens with the keys left
    assert not [t for t in _erased_texts() if t in opened]
    vectors = {e.payload.memory_id: e.payload for e in envelopes if isinstance(e.payload, MemoryEmbedded)}
    assert vectors and all(
        json.loads(d)["payload"].get("vector") in ([], None) for d in raw if b"memory.embedded" in d
    )
    _, ids = erased
    assert vectors[ids[BOB_PROMPT_GONE]].vector == () and vectors[ids[BOB_PROMPT_GONE]].text_digest == ERASED
    assert vectors[ids[BOB_KEPT]].vector and vectors[ids[BOB_PROMPTS[0]]].vector  # the kept ones open
    store = [p for p in (stack.home / "nats").rglob("*") if p.is_file()]
    assert store
    leaks = [
        f"{t[:20]} in {p.name}"
        for p in store
        for t in (*ALICE, BOB_GONE, BOB_KEPT)
        if t.encode() in p.read_bytes()
    ]
    assert not leaks
    log_dir = [p for p in store if "LOG" in p.parts]
    prompts = [ALICE_PROMPT, *BOB_PROMPTS]  # HOOKS held them until ingest took them: LOG never in clear
    assert log_dir and not [p for p in log_dir for t in prompts if t.encode() in p.read_bytes()]


def test_a_tenant_token_without_admin_cannot_erase(erased: tuple[Stack, dict[str, str]]) -> None:
    stack, ids = erased
    eraser = erasure_pb2_grpc.ErasureServiceStub(grpc.insecure_channel(stack.grpc_address))
    with pytest.raises(grpc.RpcError) as denied:
        eraser.Erase(
            erasure_pb2.EraseRequest(memory_id=ids[BOB_KEPT]),
            metadata=(("authorization", "Bearer tok-alpha"),),
            timeout=10,
        )
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_replay_after_erasure_rebuilds_the_same_projection(erased: tuple[Stack, dict[str, str]]) -> None:
    stack, ids = erased
    stub, meta = stack.stub(), (("authorization", f"Bearer {stack.token()}"),)
    replayed = stub.Replay(pb.ReplayRequest(), metadata=meta, timeout=120)
    assert replayed.digest_before == replayed.digest_after
    assert replayed.graph_digest_before == replayed.graph_digest_after
    for text in _kept_texts():  # replay opened them again (vectors included: no re-embedding)
        hits = stub.Recall(pb.RecallRequest(query=text, limit=5), metadata=meta, timeout=10).hits
        assert hits and hits[0].memory.text == text and hits[0].score.dense > 0
    time.sleep(3)  # the old index generation is removed once its readers are done
    gateway = [p for p in (stack.home / "gateway").rglob("*") if p.is_file()]
    leaks = [p.name for p in gateway for t in _erased_texts() if t.encode() in p.read_bytes()]
    assert not leaks, leaks
    assert os.stat(stack.home / "keys").st_mode & 0o077 == 0
    assert Path(stack.home / "keys").is_dir() and ids
