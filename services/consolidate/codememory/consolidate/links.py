"""Semantic links: each memory's nearest neighbours by meaning, and the code it names that exists.

Recall expands a top hit to its session neighbours already; these links add the memories that say
something close from other sessions, and tie a memory to files of its repository (its own paths, and
paths its text mentions, matched against the files the code index knows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.similarity import similar_pairs
from codememory.consolidate.view import Remembered

_PATHLIKE = re.compile(r"[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.[A-Za-z0-9]{1,5}")


def code_named(memory: Remembered, files: set[str]) -> tuple[str, ...]:
    """Files of the repository the memory touches or names (a mention matches a path's suffix)."""
    found = [p for p in memory.paths if p in files]
    for mention in _PATHLIKE.findall(memory.text):
        if mention in files:
            found.append(mention)
            continue
        suffix = "/" + mention
        found.extend(p for p in files if p.endswith(suffix))
    return tuple(dict.fromkeys(found))[:10]


def find_links(
    new: Sequence[Remembered], group: Sequence[Remembered], files: set[str], policy: ConsolidationPolicy
) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """memory id -> (neighbour ids best first, code paths), for memories of ``new`` with any link."""
    neighbours: dict[str, list[str]] = {}
    for pair in similar_pairs(new, group, policy.link_similarity, top=policy.links_per_memory):
        neighbours.setdefault(pair.new.memory_id, []).append(pair.other.memory_id)
    out = {}
    for memory in new:
        near = tuple(neighbours.get(memory.memory_id, ())[: policy.links_per_memory])
        code = code_named(memory, files)
        if near or code:
            out[memory.memory_id] = (near, code)
    return out
