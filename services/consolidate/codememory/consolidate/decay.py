"""Decay and expiry: what nobody uses fades, what is used or tied to live code stays.

A memory's importance halves every ``decay_half_life_days`` (``stated_half_life_days`` for what
someone stated or a cycle derived) since it was last used: created, stated again (a restatement
merged into it), or returned by recall or session context (``memories.recalled``). A memory that
names a file that still exists in its repository does not decay. Importance never falls below
``decay_floor``; changes smaller than ``decay_step`` wait.

Observations nobody ever recalled are archived after ``observation_ttl_days``; reads and searches,
the most numerous and least useful, after ``unused_read_ttl_days``. Archived memories leave recall
(history still shows them); LOG keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.view import Remembered
from codememory.memory.kinds import OBSERVED_TYPES

DAY = 86400.0
_READS = ("read", "search")


@dataclass(frozen=True)
class Expiry:
    memory_ids: tuple[str, ...]
    reason: str


def decayed_importance(
    memory: Remembered,
    now: float,
    live_files: set[str],
    policy: ConsolidationPolicy,
    stated_again: float = 0.0,
) -> float:
    """``stated_again``: the latest restatement merged into it by the cycle deciding this (not yet
    in ``memory.last_stated``)."""
    if any(path in live_files for path in memory.paths):
        return memory.base_importance
    stated = memory.memory_type not in OBSERVED_TYPES
    half_life = policy.stated_half_life_days if stated else policy.decay_half_life_days
    used = max(memory.created_at, memory.last_stated, stated_again, memory.last_access)
    idle_days = max(0.0, now - used) / DAY
    factor: float = 0.5 ** (idle_days / half_life)
    return min(memory.base_importance, max(policy.decay_floor, memory.base_importance * factor))


def adjustments(
    memories: Iterable[Remembered],
    now: float,
    files: dict[str, set[str]],
    policy: ConsolidationPolicy,
    stated_again: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """(memory id, new importance) for every current memory whose importance moved by ``decay_step``;
    ``stated_again``: memory id -> the latest restatement merged into it by this cycle."""
    again = stated_again or {}
    out = []
    for memory in memories:
        if memory.state != "active":
            continue
        live = files.get(memory.repo, set())
        decayed = decayed_importance(memory, now, live, policy, again.get(memory.memory_id, 0.0))
        value = round(decayed, 3)
        if abs(value - memory.importance) >= policy.decay_step:
            out.append((memory.memory_id, value))
    return out


def expiries(memories: Iterable[Remembered], now: float, policy: ConsolidationPolicy) -> list[Expiry]:
    """Observations to archive, reads and searches first (two groups, each with its reason)."""
    reads: list[str] = []
    stale: list[str] = []
    for memory in memories:
        if memory.state != "active" or memory.memory_type != "observation" or memory.accesses:
            continue
        age_days = (now - memory.created_at) / DAY
        if memory.kind in _READS and age_days >= policy.unused_read_ttl_days:
            reads.append(memory.memory_id)
        elif age_days >= policy.observation_ttl_days:
            stale.append(memory.memory_id)
    out = []
    if reads:
        out.append(
            Expiry(tuple(reads), f"a read or search nobody recalled in {policy.unused_read_ttl_days:g} days")
        )
    if stale:
        out.append(
            Expiry(tuple(stale), f"an observation nobody recalled in {policy.observation_ttl_days:g} days")
        )
    return out
