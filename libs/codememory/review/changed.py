"""Changed line ranges to the innermost enclosing functions, methods and classes the graph records.

Why: "what did this diff change" is answered in symbols, for every indexed language, from the lines the
graph recorded at the last index (the diff's old side, see ``diffs``). A change inside a method names the
method, not its class; a change between methods names the class; a change outside any symbol names no
symbol (the file still counts for dependents and co-change). A symbol whose definition line is removed
has a changed signature (its callers may need changing too); one whose every line is removed, or whose
file is deleted, is deleted (on the new side: added).
"""

from __future__ import annotations

from codememory.codegraph.model import SymbolNode
from codememory.codegraph.reader import GraphReader
from codememory.review.diffs import FileDiff
from codememory.review.model import ChangedSymbol

__all__ = ["ChangedFile", "changed_symbols"]

ChangedFile = tuple[FileDiff, int]  # a diff's file and its node in the graph


def _encloses(outer: SymbolNode, inner: SymbolNode) -> bool:
    return outer is not inner and outer.start_line <= inner.start_line and inner.end_line <= outer.end_line


def _signature_lines(symbol: SymbolNode) -> range:
    return range(symbol.start_line, symbol.start_line + max(1, symbol.signature.count("\n") + 1))


def changed_symbols(
    graph: GraphReader, repo: str, files: list[FileDiff]
) -> tuple[list[tuple[int, ChangedSymbol]], list[ChangedFile], list[str]]:
    """(changed symbols with their node indices, the diff's files the graph knows, those it does not)."""
    found: list[tuple[int, ChangedSymbol]] = []
    known: list[ChangedFile] = []
    unknown: list[str] = []
    for change in files:
        fidx = graph.current_file(repo, change.path) if change.in_graph else None
        if fidx is None:
            unknown.append(change.new_path if change.side == "old" else change.path)
            continue
        known.append((change, fidx))
        symbols = [(i, s) for i, s in graph.symbols_in(fidx) if s.kind != "module"]
        hit = [(i, s) for i, s in symbols if change.whole or change.touches(s.start_line, s.end_line)]
        innermost = [(i, s) for i, s in hit if not any(_encloses(s, o) for _, o in hit)]
        for idx, s in sorted(innermost, key=lambda p: (p[1].start_line, p[1].qualname)):
            every = change.whole or all(n in change.removed for n in range(s.start_line, s.end_line + 1))
            gone = every and change.side == "old"
            status = "deleted" if gone else "added" if every else "modified"
            found.append(
                (
                    idx,
                    ChangedSymbol(
                        repo=repo,
                        qualname=s.qualname,
                        name=s.name,
                        kind=s.kind,
                        path=s.path,
                        start_line=s.start_line,
                        end_line=s.end_line,
                        signature=s.signature,
                        signature_changed=status != "added"
                        and (gone or any(n in change.removed for n in _signature_lines(s))),
                        status=status,
                    ),
                )
            )
    return found, known, unknown
