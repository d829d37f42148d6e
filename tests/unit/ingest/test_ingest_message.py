"""Hook message parsing and envelope stamping: strict about the envelope, lenient about the payload."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from codememory.events import ObservationRecorded, PromptSubmitted, decode_envelope, encode_envelope
from codememory.ingest.errors import IngestError, MalformedHookMessageError
from codememory.ingest.message import parse_hook_message, to_envelopes

PROMPT = {"session_id": "s-1", "cwd": "/repo", "hook_event_name": "UserPromptSubmit", "prompt": "fix auth"}


def test_parse_reads_every_envelope_field(message):
    parsed = parse_hook_message(message("Claude", PROMPT, trimmed=["tool_response.content"]))
    assert parsed.agent == "claude"
    assert parsed.hook_event == "UserPromptSubmit"
    assert parsed.tenant == "local"
    assert parsed.received_at == datetime(2026, 11, 22, 6, 0, 0, 123456, tzinfo=UTC)
    assert parsed.dedupe_key == "0123456789abcdef0123456789abcdef"
    assert (parsed.repo, parsed.branch, parsed.user) == ("claude-agentic-framework", "main", "tom")
    assert parsed.trimmed == ("tool_response.content",)
    assert parsed.payload == PROMPT


@pytest.mark.parametrize(
    ("received_at", "expected"),
    [
        ("2026-11-22T08:00:00+02:00", datetime(2026, 11, 22, 6, 0, tzinfo=UTC)),
        ("2026-11-22T06:00:00", datetime(2026, 11, 22, 6, 0, tzinfo=UTC)),
    ],
)
def test_received_at_becomes_utc(message, received_at, expected):
    assert parse_hook_message(message("claude", PROMPT, received_at=received_at)).received_at == expected


def test_event_falls_back_to_the_payloads_hook_event_name(message):
    assert parse_hook_message(message("claude", PROMPT, event="")).hook_event == "UserPromptSubmit"


def test_null_optional_fields_read_as_empty(message):
    parsed = parse_hook_message(message("claude", PROMPT, repo=None, branch=None, trimmed=None))
    assert (parsed.repo, parsed.branch, parsed.trimmed) == ("", "", ())


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not json {", "not JSON"),
        (b"[1, 2]", "not an object"),
        (b'"text"', "not an object"),
    ],
)
def test_non_object_messages_are_malformed(data, reason):
    with pytest.raises(MalformedHookMessageError, match=reason):
        to_envelopes(data)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"received_at": None}, "received_at"),
        ({"received_at": "yesterday"}, "received_at"),
        ({"received_at": 1763791200}, "received_at"),
        ({"dedupe_key": ""}, "dedupe_key"),
        ({"tenant": 7}, "tenant"),
        ({"agent": None}, "agent"),
        ({"payload": ["a"]}, "payload"),
        ({"payload": None}, "payload"),
        ({"repo": 3}, "repo"),
        ({"trimmed": "tool_response"}, "trimmed"),
        ({"v": 2}, "version"),
    ],
)
def test_bad_envelope_fields_are_malformed(message, overrides, field):
    with pytest.raises(MalformedHookMessageError, match=field) as caught:
        to_envelopes(message("claude", PROMPT, **overrides))
    assert isinstance(caught.value, IngestError)


@pytest.mark.parametrize("field", ["received_at", "dedupe_key", "tenant", "agent", "payload"])
def test_missing_envelope_fields_are_malformed(message, field):
    data = json.loads(message("claude", PROMPT))
    del data[field]
    with pytest.raises(MalformedHookMessageError, match=field):
        to_envelopes(json.dumps(data).encode())


def test_missing_received_at_is_malformed(message):
    data = json.loads(message("claude", PROMPT))
    del data["received_at"]
    with pytest.raises(MalformedHookMessageError, match="received_at"):
        to_envelopes(json.dumps(data).encode())


def test_dlq_reason_stays_short_for_a_huge_bad_value(message):
    with pytest.raises(MalformedHookMessageError) as caught:
        to_envelopes(message("claude", PROMPT, received_at="x" * 100_000))
    assert len(str(caught.value)) < 200


def test_envelopes_carry_identity_time_and_lineage(message):
    [envelope] = to_envelopes(message("claude", PROMPT))
    assert isinstance(envelope.payload, PromptSubmitted)
    assert envelope.tenant == "local"
    assert envelope.occurred_at == datetime(2026, 11, 22, 6, 0, 0, 123456, tzinfo=UTC)
    assert envelope.causation_id == "0123456789abcdef0123456789abcdef"
    assert envelope.correlation_id == "s-1"
    assert decode_envelope(encode_envelope(envelope)) == envelope


def test_event_ids_are_deterministic(message):
    first = [e.event_id for e in to_envelopes(message("claude", PROMPT))]
    again = [e.event_id for e in to_envelopes(message("claude", PROMPT))]
    other = [e.event_id for e in to_envelopes(message("claude", PROMPT, dedupe_key="f" * 32))]
    assert first == again
    assert first != other


def test_correlation_falls_back_to_the_dedupe_key_without_a_session(message):
    [envelope] = to_envelopes(message("claude", {"hook_event_name": "Notification", "message": "hi"}))
    assert envelope.payload.session_id == ""
    assert envelope.correlation_id == envelope.causation_id


def test_unknown_agent_is_an_observation(message):
    payload = {"session_id": "w-1", "hook_event_name": "post_cascade_response", "response": "done"}
    [envelope] = to_envelopes(message("windsurf", payload))
    event = envelope.payload
    assert isinstance(event, ObservationRecorded)
    assert (event.agent, event.hook_event, event.session_id) == ("windsurf", "post_cascade_response", "w-1")
    assert event.fields["response"] == "done"


def test_unknown_event_of_a_known_agent_is_an_observation(message):
    payload = {"session_id": "s-1", "hook_event_name": "BrandNewHook", "detail": {"x": 1}}
    [envelope] = to_envelopes(message("claude", payload))
    assert isinstance(envelope.payload, ObservationRecorded)
    assert envelope.payload.hook_event == "BrandNewHook"
    assert envelope.payload.fields["detail"] == {"x": 1}


def test_raw_payload_is_an_observation(message):
    [envelope] = to_envelopes(message("claude", {"_raw": "not json at all"}, event="unknown"))
    event = envelope.payload
    assert isinstance(event, ObservationRecorded)
    assert event.fields == {"_raw": "not json at all"}
    assert "Unparsed" in event.summary


def test_an_unanticipated_payload_shape_is_kept_not_raised(message, monkeypatch):
    from codememory.ingest.normalize import dispatch

    def broken(ctx, payload):
        raise TypeError("surprise")

    monkeypatch.setitem(dispatch.NORMALIZERS, "claude", broken)
    [envelope] = to_envelopes(message("claude", PROMPT))
    assert isinstance(envelope.payload, ObservationRecorded)
    assert "surprise" in envelope.payload.fields["_normalize_error"]
