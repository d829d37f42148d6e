"""A repository's symbols never hold a memory back: the embed service on a real nats-server, real model.

``codememory index`` of a large repository appends thousands of files' symbols, minutes of embedding.
A memory stored after them gets its vector within seconds all the same, because symbols come through
their own durable (``embed-symbols``), pulled beside the memories' (``embed``). With one durable for
both, the memory waited at the end of the symbols' backlog (seen with ``codememory index`` of this
repository: a cycle run then found 687 memories without vectors and concluded nothing).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import nats
import pytest
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus import JetStreamEventLog
from codememory.bus.app import consumer_app
from codememory.bus.streams import ensure_streams
from codememory.embed.main import ModelSlot, create_router
from codememory.embed.settings import EmbedSettings
from codememory.embedding import Embedder
from codememory.events import (
    MemoryEmbedded,
    MemoryStored,
    Symbol,
    SymbolsExtracted,
    decode_envelope,
    new_envelope,
)
from codememory.runtime.natsd import NatsServer
from codememory.topology import EMBED

FILES, SYMBOLS_PER_FILE = 150, 40  # 6,000 symbols: minutes of embedding on two cores
DEADLINE_S = 60.0


def _file(i: int) -> SymbolsExtracted:
    symbols = tuple(
        Symbol(
            qualname=f"pkg.mod{i}.handler_{j}",
            name=f"handler_{j}",
            kind="function",
            start_line=j * 10,
            end_line=j * 10 + 8,
            signature=f"def handler_{j}(request, retries=3):",
            docstring=f"Handle request kind {j} of module {i}, retrying on timeouts.",
            excerpt=f"    return dispatch(request, kind={j}, module={i})",
        )
        for j in range(SYMBOLS_PER_FILE)
    )
    return SymbolsExtracted(repo="r", path=f"pkg/mod{i}.py", content_hash=f"h{i}", symbols=symbols)


async def _count(js: JetStreamContext, kind: str) -> int:
    info = await js.stream_info("LOG", subjects_filter=subjects.log_of_kind(kind))
    return sum((info.state.subjects or {}).values())


async def test_a_memory_stored_after_a_repository_is_embedded_before_its_symbols(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: Embedder
) -> None:
    monkeypatch.setenv("CODEMEMORY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEMEMORY_SEALING", "0")
    with NatsServer(tmp_path / "nats") as server:
        client = await nats.connect(server.url)
        js = client.jetstream()
        await ensure_streams(js)
        log = JetStreamEventLog(js)
        files = [new_envelope(_file(i), event_id=str(uuid.uuid4()), tenant="t") for i in range(FILES)]
        await log.append(files)
        memory = MemoryStored(memory_id=str(uuid.uuid4()), text="we validate JWTs in the middleware")
        await log.append([new_envelope(memory, event_id=str(uuid.uuid4()), tenant="t")])

        settings = EmbedSettings(nats_url=server.url, batch=4)  # a short batch in flight at the stop
        model = ModelSlot(lambda: embedder, settings)  # the session's model, not a load of its own
        app = consumer_app(
            EMBED,
            settings,
            lambda jetstream: create_router(settings, jetstream, model),
            on_startup=[model.load],
        )
        await app.start()
        try:
            async with asyncio.timeout(DEADLINE_S):
                while not await _count(js, "memory.embedded"):
                    await asyncio.sleep(0.2)
            symbols_done = await _count(js, "symbols.embedded")
        finally:
            await app.stop()
        last = await js.get_last_msg("LOG", subjects.log_of_kind("memory.embedded"))
        await client.close()
    assert last.data is not None
    embedded = decode_envelope(last.data).payload
    assert isinstance(embedded, MemoryEmbedded) and embedded.memory_id == memory.memory_id
    # each file's symbols make at least one symbols.embedded event: most files were still waiting
    assert symbols_done < FILES / 2, f"{symbols_done} symbol events were appended before the memory's vector"
