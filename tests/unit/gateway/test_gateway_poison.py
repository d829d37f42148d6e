"""Poison in LOG never stalls the gateway: passed, counted in Status, parked in the DLQ with its reason.

A real nats-server and the gateway's FastStream app in this process. Raw events are published into
LOG between stored memories: bytes that are not JSON, a ``memory.embedded`` of the projection's model with a
vector of the wrong size, an envelope from a future schema version.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from livegateway import META, running_gateway, until  # type: ignore[import-not-found]
from nats.aio.client import Client
from wordhash import WordHashEmbedder  # type: ignore[import-not-found]

from codememory import subjects
from codememory.bus import dead_letters
from codememory.events import MemoryEmbedded, encode_envelope, new_envelope
from codememory.memory import text_digest
from codememory.runtime.natsd import NatsServer
from codememory.v1 import memory_pb2 as pb


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    with NatsServer(tmp_path_factory.mktemp("nats-poison")) as started:
        yield started


@pytest.fixture
async def nc(server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(server.url)
    yield client
    await client.close()


async def _publish(nc: Client, tag: str, data: bytes) -> int:
    ack = await nc.jetstream().publish(subjects.log("alpha", tag), data, stream="LOG")
    return int(ack.seq)


async def test_poison_events_are_passed_counted_and_dead_lettered(
    server: NatsServer, nc: Client, tmp_path: Path
) -> None:
    async with running_gateway(server.url, tmp_path / "gw") as gateway:
        first_text = "tokens are validated in the auth middleware"
        first = await gateway.store(first_text)
        wrong = new_envelope(
            MemoryEmbedded(
                memory_id=first,
                model=WordHashEmbedder.model_id,
                text_digest=text_digest(first_text),
                vector=(0.5,) * 3,
            ),
            event_id="wrong-size",
            tenant="alpha",
        )
        future = json.loads(encode_envelope(wrong))
        future.update(event_id="future", schema_version=7)
        poison = {
            await _publish(nc, "memory.stored", b"{not json"): "undecodable",
            await _publish(
                nc, "memory.embedded", encode_envelope(wrong)
            ): "3 dimensions, the index expects 16",
            await _publish(nc, "memory.embedded", json.dumps(future).encode()): "schema_version 7 is newer",
        }
        second = await gateway.store("the retry budget for payments is three")  # applied: nothing stalled

        recalled = await gateway.stub().Recall(
            pb.RecallRequest(query="auth middleware tokens retry budget payments"), metadata=META, timeout=10
        )
        assert {h.memory.id for h in recalled.hits} == {first, second}

        status = await until(lambda: _caught_up(gateway))
        projections = {p.name: p for p in status.projections}
        assert (
            projections["memory"].poison == 3 and projections["code"].poison == 2
        )  # a memory vector is no code
        assert status.dlq_messages == 3 and status.stream_messages["DLQ"] == 3 and status.serving

        letters = await until(lambda: _letters(nc, 3))
        assert {letter.source_seq for letter in letters} == set(poison)
        for letter in letters:
            assert poison[letter.source_seq] in letter.reason, letter.reason
            assert letter.stream == "LOG" and letter.subject.startswith("cm.log.alpha.memory.")


async def test_a_restart_does_not_park_the_same_poison_twice(
    server: NatsServer, nc: Client, tmp_path: Path
) -> None:
    """The code projection is rebuilt from LOG on every start: it meets the old poison again."""
    before = len([letter async for letter in dead_letters(nc.jetstream(), service="gateway")])
    async with running_gateway(server.url, tmp_path / "gw") as gateway:
        await gateway.store("one more memory after a restart")
        status = await until(lambda: _caught_up(gateway))
        # the given record, also folded from the start, passes what does not decode without parking it
        assert {p.name: p.poison for p in status.projections} == {"memory": 3, "code": 2, "given": 2}
        assert gateway.app.dead_letters.parked == 0
    after = len([letter async for letter in dead_letters(nc.jetstream(), service="gateway")])
    assert after == before


async def _caught_up(gateway):  # type: ignore[no-untyped-def]
    """Caught up, and the watchdog has said so to health (it looks every ``every_s``)."""
    status = await gateway.status()
    return status if status.caught_up and status.serving else None


async def _letters(nc: Client, count: int):  # type: ignore[no-untyped-def]
    letters = [letter async for letter in dead_letters(nc.jetstream(), service="gateway")]
    return letters if len(letters) >= count else None
