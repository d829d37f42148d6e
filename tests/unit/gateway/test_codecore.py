"""CodeCore.record: a stream of code facts is appended whole, or not at all; a search holds the shard."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable, Sequence

import pytest
from codestack import CodeStack  # type: ignore[import-not-found]
from wordhash import WordHashEmbedder  # type: ignore[import-not-found]

from codememory.codefacts import encode_fact
from codememory.events import SymbolsExtracted
from codememory.gateway import codecore
from codememory.gateway.errors import InvalidArgument


def _files(n: int) -> list[bytes]:
    return [
        encode_fact(SymbolsExtracted(repo="shop", path=f"f{i}.py", content_hash=f"h{i}", parsed=False))
        for i in range(n)
    ]


async def _stream(items: Iterable[bytes]) -> AsyncIterator[bytes]:
    for item in items:
        yield item


async def test_a_stream_is_recorded_in_batches_and_applied_when_record_returns(code_stack: CodeStack) -> None:
    recorded, last_seq = await code_stack.core.record("t1", _stream(_files(600)))
    assert (recorded, last_seq) == (600, 600)
    indexed = code_stack.core.indexed_files("t1", "shop")
    assert len(indexed) == 600 and indexed["f599.py"] == "h599"


async def test_an_invalid_fact_anywhere_records_nothing(code_stack: CodeStack) -> None:
    bad = b'{"type": "symbols.extracted", "repo": "shop", "path": "/etc/passwd", "content_hash": "h"}'
    with pytest.raises(InvalidArgument, match="fact 601: path must be repository-relative"):
        await code_stack.core.record("t1", _stream([*_files(600), bad]))
    assert code_stack.log.records == [] and code_stack.core.indexed_files("t1", "shop") == {}


async def test_a_stream_over_the_bound_is_refused_whole(
    code_stack: CodeStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = _files(300)
    monkeypatch.setattr(codecore, "MAX_STREAM_BYTES", sum(len(f) for f in facts) - 1)
    with pytest.raises(InvalidArgument, match="send them in several streams"):
        await code_stack.core.record("t1", _stream(facts))
    assert code_stack.log.records == []
    assert await code_stack.core.record("t1", _stream(facts[:-1])) == (299, 299)


class _HeldEmbedder(WordHashEmbedder):  # type: ignore[misc]
    """Embeds once ``go`` is set, saying when it started: a search caught in the middle."""

    def __init__(self) -> None:
        self.started, self.go = threading.Event(), threading.Event()

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.started.set()
        self.go.wait(10)
        result: list[tuple[float, ...]] = super().embed(texts)
        return result


async def test_a_search_holds_the_shard_until_it_is_done(shop: CodeStack) -> None:
    """A replay closes the code shard it swapped out once ``released``: not while a search reads it."""
    core = shop.core
    held = core._embedder = _HeldEmbedder()
    search = asyncio.create_task(core.search("t1", "settle the amount", limit=5))
    assert await asyncio.to_thread(held.started.wait, 10)
    released = asyncio.create_task(core.live.released(core.live.projection, 0.0, at_most_s=10))
    await asyncio.sleep(0.3)
    assert not released.done()  # the search is still reading it
    held.go.set()
    hits, _ = await search
    assert await released  # every counted read done, none cut off
    assert "shop.pay.settle" in {h.qualname for h in hits}
