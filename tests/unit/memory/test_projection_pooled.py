"""A rebuild's fold (lexical vectors from worker processes, one flush at the end) equals the live fold."""

from __future__ import annotations

from pathlib import Path

import projectionkit as kit  # type: ignore[import-not-found]
import pytest

from codememory.events import (
    Envelope,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
)
from codememory.lexical import SparseEncoder
from codememory.lexical.pool import TermsPool
from codememory.memory import text_digest
from codememory.vectorstore import IndexFilter, index_digest


def _history() -> list[tuple[int, Envelope]]:
    """Sessions whose memories carry their predecessor's text, refinements and forgetting inside a batch."""
    events: list[object] = []
    for i in range(120):
        mid = kit.memory_id(i)
        text = f"turn {i}: parseConfig reads {i % 5}.yaml via RetryPolicy"
        scope = MemoryScope(session_id=f"s{i % 3}", repo="r")
        events.append(MemoryStored(memory_id=mid, text=text, scope=scope))
        events.append(
            MemoryEmbedded(
                memory_id=mid, model="m", text_digest=text_digest(text), vector=(1.0, 0.0, 0.0, float(i))
            )
        )
        if i % 10 == 3:
            events.append(MemoryRefined(memory_id=mid, text=f"refined {i}: loadSettings"))
        if i % 17 == 5:
            events.append(MemoryForgotten(memory_id=mid))
    return kit.sequenced(events, 10_000)


@pytest.fixture(scope="module")
def pool() -> TermsPool:
    with TermsPool(SparseEncoder(), workers=2, min_batch=8) as terms:
        yield terms  # type: ignore[misc]


def test_a_pooled_rebuild_has_the_live_digest(tmp_path: Path, pool: TermsPool) -> None:
    history = _history()
    live = kit.projection(tmp_path / "live")
    for seq_env in history:  # live following: one event at a time
        live.apply_batch([seq_env])
    rebuilt = kit.projection(tmp_path / "rebuilt")
    rebuilt.terms, rebuilt.deferred_sync = pool, True
    for start in range(0, len(history), 50):
        rebuilt.apply_batch(history[start : start + 50])
    rebuilt.sync()
    everything = IndexFilter()
    assert index_digest(rebuilt.index, everything) == index_digest(live.index, everything)
    contexts = [p.payload.get("context") for p in rebuilt.index.scroll(everything)]
    assert sum(1 for c in contexts if c) > 100  # sessions' predecessors did reach the lexical text


def test_deferred_sync_writes_the_position_only_when_synced(tmp_path: Path) -> None:
    history = _history()
    projection = kit.projection(tmp_path)
    projection.deferred_sync = True
    assert projection.apply_batch(history[:30]) == 30
    assert projection.last_seq == 30 and not (tmp_path / "position.json").exists()
    projection.sync()
    projection.flush_every_s = 0.0
    projection.apply_batch(history[30:40])  # after sync: batches durable again (here every one)
    projection.index.close()
    assert kit.projection(tmp_path).last_seq == 40
