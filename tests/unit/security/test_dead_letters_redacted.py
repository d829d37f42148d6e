"""A dead letter never keeps a secret: what is parked in the DLQ is redacted first (real nats-server)."""

from __future__ import annotations

import nats

from codememory.bus import Delivery, JetStreamDeadLetters, dead_letters, ensure_streams
from codememory.bus.deadletters import scrubbed
from codememory.redaction.testing import secret_corpus
from codememory.runtime.natsd import NatsServer


def test_scrubbing_keeps_what_is_not_a_secret_byte_for_byte() -> None:
    assert scrubbed(b"not json \xff\xfe at all") == b"not json \xff\xfe at all"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    cleaned = scrubbed(f"\xff broken {token} tail".encode("latin-1"))
    assert (
        token.encode() not in cleaned and cleaned.startswith(b"\xff broken ") and cleaned.endswith(b" tail")
    )


async def test_a_raw_message_full_of_secrets_is_parked_without_them(nats_server: NatsServer) -> None:
    samples = secret_corpus(60, seed=5)
    body = ("not a hook message: " + " | ".join(s.context for s in samples)).encode()
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_streams(js)
        delivery = Delivery(
            seq=7, subject="cm.hooks.t.claude.x", data=body, attempt=5, received_as="HOOKS:7x"
        )
        await JetStreamDeadLetters(js, service="ingest-sec", stream="HOOKS").park(
            delivery, f"MalformedHookMessageError: {samples[0].context}"
        )
        [letter] = [d async for d in dead_letters(js, service="ingest-sec")]
    finally:
        await nc.close()
    leaked = [s.kind for s in samples if s.secret.encode() in letter.data or s.secret in letter.reason]
    assert not leaked and b"[REDACTED:" in letter.data and letter.subject == "cm.hooks.t.claude.x"
