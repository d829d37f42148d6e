"""Hostile input, fuzzed (hypothesis): the hook, ingest and the redactor never crash on it.

Deep nesting, lone surrogates, invalid UTF-8, huge fields: the hook always builds a message under its
size limit; ingest either makes envelopes or raises its one typed error (a DLQ case), never anything
else; the redactor always returns text and never lets a planted secret through. Redaction of an
adversarial single line grows linearly: twice the input takes well under four times as long.
"""

from __future__ import annotations

import contextlib
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codememory.hookclient.message import MAX_MESSAGE_BYTES, build_message
from codememory.ingest.errors import IngestError
from codememory.ingest.message import to_envelopes
from codememory.redaction import redact_text
from codememory.redaction.adversarial import adversarial_lines, redaction_seconds

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


WORST_SHAPES = ("repeated", "':' after", "'=' after", "'a' after", "then 'a'*n")


def test_every_redaction_rule_redacts_adversarial_lines_in_linearredaction_seconds() -> None:
    """Each rule's triggers built into lines of 8,192 and 16,384 characters (beyond every pattern's
    length bound, 4,096): twice the input must take about twice the time, not four times. A pattern
    bounded at L scans up to L characters from each anchor, so a linear rule's ratio at n = 2L is
    about 2.3 (the anchors near the end scan less), near the 3 that flags one on a busy machine: a
    flagged rule is measured again at 16,384 and 32,768 characters, where that ratio is about 2 (2.34
    then 2.01 for age_secret_key behind its `:` run) and a quadratic rule's still 4."""
    lines = [(k, s, line) for k, s, line in adversarial_lines(8192) if s.endswith(WORST_SHAPES)]
    doubled = {(k, s): line for k, s, line in adversarial_lines(16384) if s.endswith(WORST_SHAPES)}
    assert len({k for k, _, _ in lines}) >= 40  # every rule, not a sample
    slow = []
    for kind, shape, line in lines:
        t_n, t_2n = redaction_seconds(line), redaction_seconds(doubled[(kind, shape)])
        if t_2n > 0.005 and t_2n > 3 * t_n:  # measured again, longer, before it counts (a busy machine)
            longer = next(x for k, s, x in adversarial_lines(32768) if (k, s) == (kind, shape))
            rounds = [  # a quadratic rule is slow in every round; another test's burst is in one
                (redaction_seconds(doubled[(kind, shape)], 5), redaction_seconds(longer, 5)) for _ in range(3)
            ]
            if all(t_2n > 3 * t_n for t_n, t_2n in rounds):
                t_n, t_2n = rounds[-1]
                slow.append((kind, shape, round(t_n * 1000, 1), round(t_2n * 1000, 1)))
    assert not slow, slow
