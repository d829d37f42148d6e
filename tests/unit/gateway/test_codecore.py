"""CodeCore.record: a stream of code facts is appended whole, or not at all."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

import pytest
from codestack import CodeStack  # type: ignore[import-not-found]

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
