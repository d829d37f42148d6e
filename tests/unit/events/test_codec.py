from __future__ import annotations

import json

import pytest

from codememory.events import (
    EventDecodeError,
    MemoryStored,
    PromptSubmitted,
    UnknownSchemaVersionError,
    decode_envelope,
    deterministic_id,
    encode_envelope,
    log_subject,
    new_envelope,
)


def _envelope():  # type: ignore[no-untyped-def]
    return new_envelope(
        PromptSubmitted(session_id="s1", agent="claude", prompt="how do we validate tokens"),
        event_id=deterministic_id("k", "0"),
        tenant="acme",
    )


def test_round_trip_keeps_every_field() -> None:
    envelope = _envelope()
    assert decode_envelope(encode_envelope(envelope)) == envelope


def test_tag_is_on_the_wire_and_in_the_subject() -> None:
    data = json.loads(encode_envelope(_envelope()))
    assert data["payload"]["type"] == "prompt.submitted"
    assert log_subject(_envelope()) == "cm.log.acme.prompt.submitted"


def test_subject_token_is_sanitised() -> None:
    envelope = new_envelope(MemoryStored(memory_id="m", text="t"), event_id="e", tenant="a.b c*")
    assert log_subject(envelope) == "cm.log.a_b_c_.memory.stored"


def test_unknown_fields_are_tolerated() -> None:
    data = json.loads(encode_envelope(_envelope()))
    data["payload"]["added_later"] = 1
    data["also_new"] = "x"
    assert decode_envelope(json.dumps(data).encode()).payload.prompt == "how do we validate tokens"  # type: ignore[union-attr]


@pytest.mark.parametrize("raw", [b"not json", b"[]", b'{"event_id": 1}', b'{"payload": {"type": "no.such"}}'])
def test_bad_input_raises_typed_error(raw: bytes) -> None:
    with pytest.raises(EventDecodeError):
        decode_envelope(raw)


def test_future_schema_version_is_rejected_as_such() -> None:
    data = json.loads(encode_envelope(_envelope()))
    data["schema_version"] = 99
    data["payload"]["type"] = "something.new"
    with pytest.raises(UnknownSchemaVersionError):
        decode_envelope(json.dumps(data).encode())


def test_future_schema_version_is_rejected_even_when_its_shape_parses() -> None:
    data = json.loads(encode_envelope(_envelope()))
    data["schema_version"] = 2
    with pytest.raises(UnknownSchemaVersionError):
        decode_envelope(json.dumps(data).encode())


def test_deterministic_ids() -> None:
    assert deterministic_id("a", "b") == deterministic_id("a", "b")
    assert deterministic_id("a", "b") != deterministic_id("ab", "")
