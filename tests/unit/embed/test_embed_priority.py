"""Symbols are embedded in their own thread, niced below the event path; memories are not.

A stand-in model records the nice value of the thread each call ran in (the real model: the e2e tests).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from codememory.bus import Delivery
from codememory.embed.handler import EmbedHandler
from codememory.embed.priority import symbol_executor, thread_nice
from codememory.embed.settings import EmbedSettings
from codememory.events import (
    InMemoryEventLog,
    MemoryEmbedded,
    MemoryStored,
    Symbol,
    SymbolsEmbedded,
    SymbolsExtracted,
    decode_envelope,
    new_envelope,
)
from codememory.settings import SettingsError

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice is Linux's")


class NiceRecorder:
    model_id, dim = "local/stand", 3

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []  # (texts, nice of the calling thread)

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append((len(texts), thread_nice()))
        return [(1.0, 0.0, 0.0)] * len(texts)


def _symbol(i: int) -> Symbol:
    return Symbol(
        qualname=f"m.f{i}", name=f"f{i}", kind="function", start_line=i, end_line=i + 1,
        signature=f"def f{i}():", docstring="", excerpt=f"    return {i}",
    )  # fmt: skip


@linux_only
async def test_symbols_are_embedded_niced_and_memories_at_the_callers_priority() -> None:
    log = InMemoryEventLog()
    stored = new_envelope(MemoryStored(memory_id="m1", text="we retry twice"), event_id="e1", tenant="t")
    extracted = SymbolsExtracted(repo="r", path="m.py", content_hash="h", symbols=(_symbol(1), _symbol(2)))
    await log.append([stored, new_envelope(extracted, event_id="e2", tenant="t")])
    model = NiceRecorder()
    executor = symbol_executor(7)
    try:
        handler = EmbedHandler(log, model, symbols=executor)
        deliveries = [Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in log.records]
        await handler(deliveries)
    finally:
        executor.shutdown()
    base = thread_nice()
    assert model.calls == [(1, base), (4, min(base + 7, 19))]  # two dense texts per symbol
    appended = [decode_envelope(r.data).payload for r in log.records[2:]]
    assert [type(p) for p in appended] == [MemoryEmbedded, SymbolsEmbedded]


def test_the_symbol_nice_is_a_setting_within_the_os_range() -> None:
    assert EmbedSettings.from_env({}).symbol_nice == 10
    assert EmbedSettings.from_env({"CODEMEMORY_EMBED_SYMBOL_NICE": "0"}).symbol_nice == 0
    with pytest.raises(SettingsError, match="SYMBOL_NICE"):
        EmbedSettings.from_env({"CODEMEMORY_EMBED_SYMBOL_NICE": "25"})


@linux_only
async def test_with_a_memory_nice_memory_texts_are_embedded_below_the_event_path_too() -> None:
    from codememory.embed.main import ModelSlot

    log = InMemoryEventLog()
    stored = new_envelope(MemoryStored(memory_id="m1", text="we retry twice"), event_id="e1", tenant="t")
    await log.append([stored])
    model = NiceRecorder()
    slot = ModelSlot(lambda: model, EmbedSettings(memory_nice=5))
    assert ModelSlot(lambda: model, EmbedSettings()).memories() is None  # by default: as before
    executor = slot.memories()
    assert executor is not None and slot.memories() is executor  # one thread, made once
    try:
        handler = EmbedHandler(log, model, memories=executor)
        await handler([Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in log.records])
    finally:
        executor.shutdown()
    assert model.calls == [(1, min(thread_nice() + 5, 19))]
    assert EmbedSettings.from_env({"CODEMEMORY_EMBED_MEMORY_NICE": "19"}).memory_nice == 19
    with pytest.raises(SettingsError, match="MEMORY_NICE"):
        EmbedSettings.from_env({"CODEMEMORY_EMBED_MEMORY_NICE": "-1"})
