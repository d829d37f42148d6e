"""Hostile input, fuzzed (hypothesis): the hook, ingest and the redactor never crash on it.

Deep nesting, lone surrogates, invalid UTF-8, huge fields: the hook always builds a message under its
size limit; ingest either makes envelopes or raises its one typed error (a DLQ case), never anything
else; the redactor always returns text and never lets a planted secret through. Redaction of an
adversarial single line grows linearly: twice the input takes well under four times as long.
"""

from __future__ import annotations

import contextlib
import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codememory.hookclient.message import MAX_MESSAGE_BYTES, build_message
from codememory.ingest.errors import IngestError
from codememory.ingest.message import to_envelopes
from codememory.redaction import redact_text

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=40,
)


def _nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


@FUZZ
@given(raw=st.binary(max_size=4096) | st.sampled_from([_nested(5000), b"\xff\xfe" * 100, b'{"x":"\\ud800"}']))
def test_the_hook_builds_a_bounded_message_from_any_bytes(raw: bytes) -> None:
    message = build_message("claude", raw, tenant="t", max_field=1024, now=1.0)
    assert len(message.data) <= MAX_MESSAGE_BYTES
    json.loads(message.data)  # always valid JSON, whatever came in


@FUZZ
@given(payload=json_values, prompt=st.text(max_size=2000))
def test_the_hook_and_ingest_agree_on_any_payload(payload: object, prompt: str) -> None:
    # Python's json writes NaN/Infinity as agents' tools sometimes do: the hook must keep it JSON
    raw = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "extra": payload}).encode()
    message = build_message("claude", raw, tenant="t", max_field=1024, now=1.0)
    envelopes = to_envelopes(message.data, bound_tenant="t")
    assert all(e.tenant == "t" for e in envelopes)


@FUZZ
@given(data=st.binary(max_size=2048) | json_values.map(lambda v: json.dumps(v).encode()))
def test_ingest_raises_only_its_typed_error(data: bytes) -> None:
    with contextlib.suppress(IngestError):
        to_envelopes(data, bound_tenant="t")


@FUZZ
@given(
    body=st.fixed_dictionaries(
        {
            "v": st.just(1),
            "agent": st.text(min_size=1, max_size=20),
            "event": st.text(max_size=30),
            "tenant": st.text(min_size=1, max_size=20),
            "received_at": st.sampled_from(
                ["2026-01-01T00:00:00+00:00", "not a date", "9999-12-31T23:59:59"]
            ),
            "dedupe_key": st.text(min_size=1, max_size=40),
            "payload": st.dictionaries(st.text(max_size=10), json_values, max_size=6),
        }
    )
)
def test_a_well_formed_message_of_another_tenant_is_refused_typed(body: dict[str, object]) -> None:
    try:
        envelopes = to_envelopes(json.dumps(body).encode(), bound_tenant="bound")
    except IngestError:
        return
    assert all(e.tenant == "bound" for e in envelopes)


SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@FUZZ
@given(before=st.text(max_size=500), after=st.text(max_size=500))
def test_the_redactor_removes_a_planted_token_in_any_surroundings(before: str, after: str) -> None:
    redacted = redact_text(f"{before} {SECRET} {after}")
    assert SECRET not in redacted


ADVERSARIAL = [
    "a" * 1,
    "=" * 1,
    "ghp_" * 1,
    "-----BEGIN " * 1,
    "password=" * 1,
    "Authorization: Bearer " * 1,
    "eyJ" + "A" * 1,
    "AKIA" * 1,
    "x" * 1 + "@" + "y.",
    '"' * 1 + ":",
]


def _time(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        redact_text(text)
        best = min(best, time.perf_counter() - start)
    return best


def test_adversarial_single_lines_redact_in_linear_time() -> None:
    for unit in ADVERSARIAL:
        small, large = unit * 4000, unit * 8000
        t_small, t_large = _time(small), _time(large)
        assert t_large < 4 * t_small + 0.01, (unit, t_small, t_large)  # quadratic would be 4x
