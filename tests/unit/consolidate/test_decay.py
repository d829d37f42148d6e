from consolidatekit import memory, unit  # type: ignore[import-not-found]

from codememory.consolidate.decay import DAY, adjustments, expiries
from codememory.consolidate.policy import ConsolidationPolicy

POLICY = ConsolidationPolicy()
NOW = 1_000 * DAY


def test_unused_observations_fade_and_stated_memories_fade_slower() -> None:
    seen = memory("ran the build", unit(1), memory_type="observation", created_at=NOW - 60 * DAY)
    said = memory("use uv", unit(1), memory_type="decision", created_at=NOW - 60 * DAY)
    moved = dict(adjustments([seen, said], NOW, {}, POLICY))
    assert moved[seen.memory_id] == 0.3  # two half-lives of 30 days, held at the floor
    assert 0.35 < moved[said.memory_id] < 0.5  # a third of its 180-day half-life
    low = memory(
        "read a file", unit(1), memory_type="observation", created_at=NOW - 90 * DAY, base_importance=0.2
    )
    low.importance = 0.2
    assert low.memory_id not in dict(adjustments([low], NOW, {}, POLICY))  # decay never raises it


def test_use_and_live_code_keep_importance() -> None:
    used = memory("ran the build", unit(1), memory_type="observation", created_at=NOW - 90 * DAY)
    used.last_access = NOW - DAY
    tied = memory(
        "cart rounding", unit(1), memory_type="observation", created_at=NOW - 90 * DAY, paths=("cart.py",)
    )
    assert adjustments([used, tied], NOW, {"r": {"cart.py"}}, POLICY) == []


def test_reads_nobody_recalled_expire_first_then_other_observations() -> None:
    read = memory("read README", unit(1), memory_type="observation", created_at=NOW - 5 * DAY, kind="read")
    edit = memory("edited cart", unit(1), memory_type="observation", created_at=NOW - 5 * DAY, kind="edit")
    old = memory("ran tests", unit(1), memory_type="observation", created_at=NOW - 40 * DAY, kind="shell")
    recalled = memory("read docs", unit(1), memory_type="observation", created_at=NOW - 40 * DAY, kind="read")
    recalled.accesses = 1
    found = {e.memory_ids: e.reason for e in expiries([read, edit, old, recalled], NOW, POLICY)}
    assert set(found) == {(read.memory_id,), (old.memory_id,)}
