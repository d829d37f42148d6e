"""Sealing through the codec: what LOG holds, what a reader gets back, and what erasure leaves."""

from __future__ import annotations

import uuid

from codememory.events import (
    Envelope,
    InsightDerived,
    MemoryEmbedded,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
    ObservationRecorded,
    PromptSubmitted,
    decode_envelope,
    encode_envelope,
    new_envelope,
)
from codememory.events.codec import install_sealer
from codememory.sealing import ERASED, UNAVAILABLE, MemoryKeyStore, Sealer, destroy, plan


def _memory(text: str, *, user: str = "alice", session: str = "s1", tenant: str = "t") -> Envelope:
    event = MemoryStored(
        memory_id=str(uuid.uuid4()), text=text, scope=MemoryScope(user=user, session_id=session)
    )
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant=tenant)


def _prompt(text: str, *, user: str = "alice", session: str = "s1") -> Envelope:
    event = PromptSubmitted(session_id=session, agent="claude", user=user, prompt=text)
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant="t")


def test_sealed_text_is_not_in_the_bytes_and_opens_back(sealer: Sealer) -> None:
    envelope = _memory("the deploy key rotates on Fridays")
    data = encode_envelope(envelope)
    assert b"Fridays" not in data and b"cmseal1:" in data
    assert decode_envelope(data) == envelope


def test_dict_fields_and_unsealed_events_round_trip(sealer: Sealer) -> None:
    observation = ObservationRecorded(
        session_id="s1", agent="a", hook_event="Notification", summary="hi", fields={"message": "private"}
    )
    envelope = new_envelope(observation, event_id="e1", tenant="t")
    data = encode_envelope(envelope)
    assert b"private" not in data and decode_envelope(data) == envelope
    vector = new_envelope(
        MemoryEmbedded(memory_id="m", model="x", text_digest="d", vector=(0.5,)), event_id="e2", tenant="t"
    )
    assert encode_envelope(vector) == encode_envelope(vector)  # nothing sealed, bytes unchanged


def test_erasing_a_memory_leaves_the_others_and_keeps_the_shape(sealer: Sealer) -> None:
    kept, gone = _memory("kept text"), _memory("gone text")
    kept_data, gone_data = encode_envelope(kept), encode_envelope(gone)
    memory_id = gone.payload.memory_id  # type: ignore[union-attr]
    erase = plan(sealer.keys, "t", "memory", memory_id)
    assert erase.memory_ids == (memory_id,)
    assert destroy(sealer.keys, erase) == 1
    opened = decode_envelope(gone_data)
    assert opened.payload.text == ERASED  # type: ignore[union-attr]
    assert opened.payload.memory_id == memory_id and opened.event_id == gone.event_id  # type: ignore[union-attr]
    assert decode_envelope(kept_data) == kept
    refined = new_envelope(MemoryRefined(memory_id=memory_id, text="new words"), event_id="r", tenant="t")
    assert b"new words" not in encode_envelope(refined)  # written after the erasure: erased too


def test_erasing_a_user_covers_sessions_memories_and_what_was_derived(sealer: Sealer) -> None:
    prompt, memory = _prompt("alice's prompt"), _memory("alice's memory")
    insight = new_envelope(
        InsightDerived(insight_id="i1", kind="fix", title="alice's lesson", session_id="s1"),
        event_id="i",
        tenant="t",
    )
    bob = _memory("bob's memory", user="bob", session="s2")
    data = [encode_envelope(e) for e in (prompt, memory, insight, bob)]
    erase = plan(sealer.keys, "t", "user", "alice")
    assert set(erase.records) == {"s:s1", f"m:{memory.payload.memory_id}", "m:i1"}  # type: ignore[union-attr]
    destroy(sealer.keys, erase)
    opened = [decode_envelope(d) for d in data]
    assert opened[0].payload.prompt == ERASED  # type: ignore[union-attr]
    assert opened[1].payload.text == ERASED  # type: ignore[union-attr]
    assert opened[2].payload.title == ERASED  # type: ignore[union-attr]
    assert opened[3] == bob
    again = _memory("alice is back")  # a user erased and seen again starts with a new key
    assert decode_envelope(encode_envelope(again)) == again


def test_erasing_a_session_takes_its_memories_not_other_sessions(sealer: Sealer) -> None:
    in_session, other = _memory("in s1"), _memory("in s9", session="s9")
    prompt = _prompt("prompt of s1")
    data = [encode_envelope(e) for e in (in_session, other, prompt)]
    destroy(sealer.keys, plan(sealer.keys, "t", "session", "s1"))
    assert decode_envelope(data[0]).payload.text == ERASED  # type: ignore[union-attr]
    assert decode_envelope(data[1]) == other
    assert decode_envelope(data[2]).payload.prompt == ERASED  # type: ignore[union-attr]


def test_a_token_moved_to_another_event_or_tenant_does_not_open(sealer: Sealer) -> None:
    data = encode_envelope(_memory("secret words", tenant="t"))
    forged = data.replace(b'"tenant":"t"', b'"tenant":"u"')
    assert decode_envelope(forged).payload.text == UNAVAILABLE  # type: ignore[union-attr]


def test_without_keys_a_reader_sees_a_placeholder(sealer: Sealer) -> None:
    data = encode_envelope(_memory("secret words"))
    install_sealer(Sealer(MemoryKeyStore()))  # another process with an empty key store
    assert decode_envelope(data).payload.text == UNAVAILABLE  # type: ignore[union-attr]


def test_event_ids_and_plaintext_writes_are_unchanged_when_off() -> None:
    envelope = _memory("plain")
    assert b"plain" in encode_envelope(envelope) and decode_envelope(encode_envelope(envelope)) == envelope


def test_settings_default_to_the_home_and_can_turn_sealing_off(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from codememory.events.codec import installed_sealer
    from codememory.sealing import SealingSettings, install_sealing

    settings = SealingSettings.from_env(environ={"CODEMEMORY_HOME": str(tmp_path)})
    assert settings.enabled and settings.keystore_dir == tmp_path / "keys"
    off = SealingSettings.from_env(environ={"CODEMEMORY_SEALING": "0", "CODEMEMORY_KEYSTORE_DIR": "/k"})
    assert not off.enabled and str(off.keystore_dir) == "/k"
    previous = installed_sealer()
    try:
        assert isinstance(install_sealing(settings), Sealer) and (tmp_path / "keys").is_dir()
        assert install_sealing(off) is None and installed_sealer() is None
    finally:
        install_sealer(previous)


def test_a_memory_key_another_process_made_is_used_not_replaced_and_erased_stays_erased(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    from codememory.sealing import FileKeyStore

    first, second = Sealer(FileKeyStore(tmp_path / "keys")), Sealer(FileKeyStore(tmp_path / "keys"))
    stored = _memory("made by the first")
    memory_id = stored.payload.memory_id  # type: ignore[union-attr]
    refined = new_envelope(
        MemoryRefined(memory_id=memory_id, text="refined by the second"), event_id="r", tenant="t"
    )
    sealed_first = first.seal(stored)
    sealed_second = second.seal(refined)  # its own key ring: finds the key the first made
    assert first.open(sealed_second) == refined and second.open(sealed_first) == stored
    destroy(first.keys, plan(first.keys, "t", "memory", memory_id))
    third = Sealer(FileKeyStore(tmp_path / "keys"))
    again = third.seal(
        new_envelope(MemoryRefined(memory_id=memory_id, text="after"), event_id="a", tenant="t")
    )
    assert again.payload.text == ERASED  # type: ignore[union-attr]
    assert third.open(sealed_first).payload.text == ERASED  # type: ignore[union-attr]
