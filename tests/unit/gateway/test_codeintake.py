"""RecordCode's intake: facts decoded, checked and redacted in worker processes, in stream order."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import pytest
from codestack import CodeStack, code_core  # type: ignore[import-not-found]

from codememory.codefacts import encode_fact
from codememory.events import Envelope, Symbol, SymbolsExtracted, decode_envelope
from codememory.gateway import codeintake
from codememory.gateway.codecore import CodeCore
from codememory.gateway.codeintake import CHUNK_FACTS, CodeIntake
from codememory.gateway.errors import InvalidArgument
from codememory.vectorstore import IndexFilter

SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def _files(n: int) -> list[bytes]:
    return [
        encode_fact(
            SymbolsExtracted(
                repo="shop",
                path=f"f{i}.py",
                content_hash=f"h{i}",
                symbols=(
                    Symbol(
                        qualname=f"f{i}.run", name="run", kind="function", start_line=1, end_line=2,
                        docstring=f"uses token {SECRET} for {i}",
                    ),
                ),
            )
        )
        for i in range(n)
    ]  # fmt: skip


async def _stream(items: Iterable[bytes]) -> AsyncIterator[bytes]:
    for item in items:
        yield item


@pytest.mark.parametrize("workers", [2, 0])
async def test_envelopes_come_back_redacted_and_in_stream_order(workers: int) -> None:
    intake = CodeIntake(workers=workers)
    try:
        envelopes = await intake.envelopes("t1", _stream(_files(3 * CHUNK_FACTS + 5)))
    finally:
        intake.close()
    paths = [e.payload.path for e in envelopes]  # type: ignore[union-attr]
    assert paths == [f"f{i}.py" for i in range(3 * CHUNK_FACTS + 5)]
    docstrings = [e.payload.symbols[0].docstring for e in envelopes]  # type: ignore[union-attr]
    assert all(SECRET not in d and "REDACTED" in d for d in docstrings)
    assert len({e.event_id for e in envelopes}) == len(envelopes) and {e.tenant for e in envelopes} == {"t1"}


async def test_a_bad_fact_in_a_later_chunk_is_named_by_its_place_in_the_stream() -> None:
    bad = b'{"type": "symbols.extracted", "repo": "shop", "path": "/etc/passwd", "content_hash": "h"}'
    facts = _files(2 * CHUNK_FACTS)
    facts.insert(CHUNK_FACTS + 9, bad)
    intake = CodeIntake(workers=2)
    try:
        with pytest.raises(
            InvalidArgument, match=f"fact {CHUNK_FACTS + 10}: path must be repository-relative"
        ):
            await intake.envelopes("t1", _stream(facts))
    finally:
        intake.close()


async def test_record_appends_everything_or_nothing(code_stack: CodeStack) -> None:
    recorded, last_seq = await codeintake.record(code_stack.core, "t1", _stream(_files(300)))
    assert (recorded, last_seq) == (300, 300)
    assert len(code_stack.core.indexed_files("t1", "shop")) == 300
    bad = b'{"type": "symbols.extracted", "repo": "", "path": "x.py", "content_hash": "h"}'
    with pytest.raises(InvalidArgument, match="fact 301: a code fact needs a repo"):
        await codeintake.record(code_stack.core, "t1", _stream([*_files(300), bad]))
    assert len(code_stack.log.records) == 300


async def test_concurrent_streams_append_in_the_order_they_arrived(code_stack: CodeStack) -> None:
    """The first stream's last fact arrives after the second stream was received and checked: the
    second still appends after the first (LOG keeps the order the client sent the files in)."""
    second_checked = asyncio.Event()

    async def slow_first() -> AsyncIterator[bytes]:
        for item in _files(70):
            yield item
        await second_checked.wait()

    async def second() -> AsyncIterator[bytes]:
        for item in _files(80)[70:]:
            yield item

    async def record_second() -> tuple[int, int]:
        intake = codeintake.shared_intake()
        prepare = intake.envelopes

        async def then_signal(tenant: str, facts: AsyncIterator[bytes], *rest: object) -> list[Envelope]:
            try:
                return await prepare(tenant, facts, *rest)  # type: ignore[arg-type]
            finally:
                second_checked.set()

        intake.envelopes = then_signal  # type: ignore[method-assign]
        try:
            return await codeintake.record(code_stack.core, "t1", second())
        finally:
            del intake.envelopes

    first = asyncio.ensure_future(codeintake.record(code_stack.core, "t1", slow_first()))
    await asyncio.sleep(0)  # the first stream arrives first
    assert await asyncio.gather(first, record_second()) == [(70, 70), (10, 80)]
    paths = [decode_envelope(r.data).payload.path for r in code_stack.log.records]  # type: ignore[union-attr]
    assert paths == [f"f{i}.py" for i in range(80)]


async def test_files_the_intake_prepared_are_taken_by_the_fold_and_index_the_same(
    code_stack: CodeStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers make each file ready for code search; the fold takes it (nothing left behind) and
    the index holds the same points as a fold that prepared every file itself (a replay)."""
    prepared = code_stack.core.prepared
    assert prepared is not None
    taken: list[bool] = []
    take = prepared.take

    def counted(*args: Any) -> Any:
        found = take(*args)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(prepared, "take", counted)
    await codeintake.record(code_stack.core, "t1", _stream(_files(150)))
    assert taken == [True] * 150 and len(prepared) == 0
    other = code_core(tmp_path / "refold", code_stack.log)
    await other.live.apply([r async for r in code_stack.log.read(1)])

    def points(core: CodeCore) -> dict[str, tuple[object, ...]]:
        index = core.live.projection.shard
        return {p.id: (p.payload, p.sparse, p.dense) for p in index.scroll(IndexFilter(), with_vectors=True)}

    live, refolded = points(code_stack.core), points(other)
    assert len(live) == 150 and live == refolded  # one point a symbol: no code text
    assert all(str(payload["tenant"]) == "t1" for payload, *_ in live.values())  # type: ignore[index]


async def test_warm_starts_the_workers_before_the_first_stream() -> None:
    intake = CodeIntake(workers=2)
    try:
        before = {p.pid for p in multiprocessing.active_children()}  # other tests' pools may be ending
        intake.warm()
        intake.warm()  # once
        assert len({p.pid for p in multiprocessing.active_children()} - before) == 2
        envelopes = await intake.envelopes("t1", _stream(_files(3)))
        assert [e.payload.path for e in envelopes] == ["f0.py", "f1.py", "f2.py"]  # type: ignore[union-attr]
    finally:
        intake.close()


def test_an_intake_worker_imports_neither_the_code_core_nor_recall() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, codememory.gateway.intakework as w; "
        "print(w.prepare_chunk.__module__, 'codememory.gateway.codecore' in sys.modules, "
        "'codememory.recall' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["codememory.gateway.intakework", "False", "False"]
    assert codeintake.prepare_chunk.__module__ == "codememory.gateway.intakework"  # what workers run
