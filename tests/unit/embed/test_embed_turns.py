"""A batch's symbol texts go through the model one forward pass per call, shortest first, and their
vectors come back in the texts' order (the real model: ``test_embed_backlog``)."""

from __future__ import annotations

from collections.abc import Sequence

from codememory.bus import Delivery
from codememory.embed.handler import SYMBOLS_PER_CALL, EmbedHandler, length_turns
from codememory.embed.symbols import symbol_jobs
from codememory.embedding.local import FORWARD_BATCH
from codememory.events import (
    InMemoryEventLog,
    Symbol,
    SymbolsEmbedded,
    SymbolsExtracted,
    decode_envelope,
    new_envelope,
)


class LengthModel:
    """A vector that says which text it is of: (length, first character); the calls it served."""

    model_id, dim = "local/length", 2

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(list(texts))
        return [(float(len(t)), float(ord(t[0]))) for t in texts]


def test_turns_take_every_text_once_shortest_first_in_calls_of_the_given_size() -> None:
    texts = ["a" * n for n in (9, 1, 30, 4, 4, 17, 2)]
    turns = length_turns(texts, 3)
    assert [len(turn) for turn in turns] == [3, 3, 1]
    flat = [i for turn in turns for i in turn]
    assert sorted(flat) == list(range(len(texts)))
    assert [len(texts[i]) for i in flat] == sorted(len(t) for t in texts)
    assert length_turns([], 3) == [] and length_turns(texts, 0) == [[i] for i in flat]


def _symbol(i: int) -> Symbol:
    return Symbol(
        qualname=f"m.f{i}", name=f"f{i}", kind="function", start_line=i, end_line=i + 1,
        signature=f"def f{i}({'x, ' * (i % 7)}):", docstring="Returns it." * (i % 5),
        excerpt=f"    return {i}",
    )  # fmt: skip


async def test_a_files_symbols_are_embedded_a_pass_per_call_and_each_vector_is_its_own_texts() -> None:
    assert SYMBOLS_PER_CALL == FORWARD_BATCH
    log = InMemoryEventLog()
    extracted = SymbolsExtracted(
        repo="r", path="m.py", content_hash="h", symbols=tuple(map(_symbol, range(1, 30)))
    )
    envelope = new_envelope(extracted, event_id="e1", tenant="t")
    await log.append([envelope])
    model = LengthModel()
    handler = EmbedHandler(log, model, symbols_per_call=8)
    await handler([Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in log.records])
    texts = [t for job in symbol_jobs([envelope]) for t in job.texts]
    assert [len(call) for call in model.calls] == [8] * (len(texts) // 8) + [len(texts) % 8] * bool(
        len(texts) % 8
    )
    called = [t for call in model.calls for t in call]
    assert sorted(called) == sorted(texts) and [len(t) for t in called] == sorted(len(t) for t in texts)
    events = [decode_envelope(r.data).payload for r in log.records[1:]]
    vectors = [v for e in events if isinstance(e, SymbolsEmbedded) for v in e.vectors]
    assert vectors == [(float(len(t)), float(ord(t[0]))) for t in texts]  # in the texts' order
