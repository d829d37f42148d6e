"""The memories linked to the changed code: decisions, preferences and earlier failures about it.

Why from the graph: a memory's ``mentions`` edges (``codegraph.fold_memory``) already say which files
and symbols it is about, whatever its words, so the memories of the changed symbols and files come back
without a text search. A memory is suspect when the code it is about changed after it was written (the
graph's relevance rule), or when this diff deletes or re-signs a symbol it is about.

A recorded commit's message is a memory too (type ``commit``, ``memory.draft``); those are the
review's ``history``, ranked by what they explain, so they are left out here rather than listed twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from codememory.codegraph.model import MemoryNode
from codememory.codegraph.reader import GraphReader
from codememory.review.model import ChangedSymbol, LinkedMemory

__all__ = ["Suspects", "linked_memories"]

MENTIONS = frozenset({"mentions"})
Suspects = Callable[[Sequence[str]], Mapping[str, str]]


def linked_memories(
    graph: GraphReader,
    changed: list[tuple[int, ChangedSymbol]],
    files: list[tuple[str, int]],
    suspects: Suspects | None = None,
    limit: int = 20,
) -> list[LinkedMemory]:
    """Memories about the changed symbols first, then about the changed files; newest first within."""
    about: dict[str, list[str]] = {}
    nodes: dict[str, MemoryNode] = {}
    rewritten: dict[str, str] = {}
    on_symbol: set[str] = set()
    targets = [(idx, s.qualname, s) for idx, s in changed] + [(idx, path, None) for path, idx in files]
    for idx, name, symbol in targets:
        for src, _ in graph.into(idx, MENTIONS):
            memory = graph.node(src)
            if not isinstance(memory, MemoryNode) or memory.memory_type == "commit":
                continue
            nodes[memory.memory_id] = memory
            about.setdefault(memory.memory_id, [])
            if name not in about[memory.memory_id]:
                about[memory.memory_id].append(name)
            if symbol is not None:
                on_symbol.add(memory.memory_id)
            if symbol is not None and symbol.signature_changed:
                verb = "deletes" if symbol.status == "deleted" else "changes the signature of"
                rewritten.setdefault(memory.memory_id, f"this diff {verb} `{symbol.qualname}`")
    ordered = sorted(
        nodes.values(), key=lambda m: (m.memory_id not in on_symbol, -m.created_at, m.memory_id)
    )[:limit]
    flagged = dict(suspects([m.memory_id for m in ordered])) if suspects is not None and ordered else {}
    return [
        LinkedMemory(
            memory_id=m.memory_id,
            text=m.text,
            created_at=m.created_at,
            about=tuple(about[m.memory_id]),
            suspect=m.memory_id in flagged or m.memory_id in rewritten,
            suspect_reason=flagged.get(m.memory_id) or rewritten.get(m.memory_id, ""),
        )
        for m in ordered
    ]
