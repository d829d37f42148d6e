"""NATS protocol pieces: URLs, header blocks, status lines and JetStream PubAck parsing."""

from __future__ import annotations

import pytest

from codememory.hookclient.protocol import (
    JetStreamError,
    NatsError,
    NoRespondersError,
    encode_headers,
    header_status,
    parse_pub_ack,
    parse_url,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("nats://127.0.0.1:4333", ("127.0.0.1", 4333, "", "")),
        ("nats://localhost", ("localhost", 4222, "", "")),
        ("127.0.0.1:5000", ("127.0.0.1", 5000, "", "")),
        ("nats://alice:s3cret@127.0.0.1:4222", ("127.0.0.1", 4222, "alice", "s3cret")),
        ("nats://tok@127.0.0.1:4222/", ("127.0.0.1", 4222, "tok", "")),
        ("nats://[::1]:4223", ("::1", 4223, "", "")),
    ],
)
def test_parse_url(url: str, expected: tuple[str, int, str, str]) -> None:
    assert parse_url(url) == expected


def test_parse_url_takes_tls_and_rejects_other_schemes() -> None:
    assert parse_url("tls://127.0.0.1:4222") == ("127.0.0.1", 4222, "", "")
    with pytest.raises(NatsError):
        parse_url("ws://127.0.0.1:4222")


def test_encode_headers_is_a_nats_header_block() -> None:
    assert encode_headers({"Nats-Msg-Id": "abc"}) == b"NATS/1.0\r\nNats-Msg-Id: abc\r\n\r\n"


def test_encode_headers_refuses_line_breaks() -> None:
    with pytest.raises(NatsError):
        encode_headers({"Nats-Msg-Id": "a\r\nInjected: 1"})


def test_header_status() -> None:
    assert header_status(b"NATS/1.0 503\r\n\r\n") == 503
    assert header_status(b"NATS/1.0 408 Request Timeout\r\n\r\n") == 408
    assert header_status(b"NATS/1.0\r\nA: b\r\n\r\n") == 0


def test_parse_pub_ack() -> None:
    ack = parse_pub_ack(None, b'{"stream":"HOOKS","seq":7}')
    assert (ack.stream, ack.seq, ack.duplicate) == ("HOOKS", 7, False)
    assert parse_pub_ack(None, b'{"stream":"HOOKS","seq":7,"duplicate":true}').duplicate


def test_parse_pub_ack_no_responders() -> None:
    with pytest.raises(NoRespondersError):
        parse_pub_ack(b"NATS/1.0 503\r\n\r\n", b"")


def test_parse_pub_ack_jetstream_errors_know_if_they_are_permanent() -> None:
    with pytest.raises(JetStreamError) as bad:
        parse_pub_ack(None, b'{"error":{"code":400,"err_code":10054,"description":"message size exceeds"}}')
    assert bad.value.permanent
    with pytest.raises(JetStreamError) as busy:
        parse_pub_ack(None, b'{"error":{"code":503,"err_code":10077,"description":"resources exceeded"}}')
    assert not busy.value.permanent


def test_parse_pub_ack_garbage() -> None:
    with pytest.raises(NatsError):
        parse_pub_ack(None, b"not json")
