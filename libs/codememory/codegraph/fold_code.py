"""Folding code facts: a file's symbols and references replace what the graph held for that file.

``SymbolsExtracted`` replaces the file's symbols and every edge going out of them (``contains``,
``imports``, ``calls``, ``inherits``, ``references``); symbols that are gone end their validity instead
of disappearing, so temporal queries still see them. A symbol whose digest changed, one that is new in a
file already indexed, or one that comes back, gets ``changed_at`` = the event's time and a history entry
(time, digest, commit). Symbols of a file indexed for the first time are *not* marked changed: their
age is unknown (git history, folded from ``CommitRecorded``, gives it), and marking them would make every
older memory about them look stale. ``FileDeleted`` ends the validity of the file and its symbols.

Edges from other files into a symbol that ended stay; queries about the present skip dead nodes.
"""

from __future__ import annotations

from codememory.codegraph.fold_memory import wake
from codememory.codegraph.model import FileNode, SymbolNode, alive_now, mark, symbol_doc
from codememory.codegraph.resolve import RepoIndex, SymFact
from codememory.codegraph.store import GraphStore
from codememory.events import CodeRef, FileDeleted, SymbolsExtracted

__all__ = ["apply_deleted", "apply_symbols"]

OWNED = frozenset({"contains", "calls", "inherits", "references"})
FILE_OWNED = frozenset({"contains", "imports"})
IMPORTS = frozenset({"imports"})


def apply_symbols(graph: GraphStore, event: SymbolsExtracted, at: float, seq: int) -> None:
    repo = graph.repo(event.repo)
    fidx, file = graph.ensure(FileNode(event.repo, event.path))
    first = not file.indexed
    if not first and event.content_hash != file.content_hash:
        file.changes.append((at, event.content_hash, event.commit))
    file.module, file.language, file.parsed = event.module, event.language, event.parsed
    file.content_hash, file.indexed, file.seq = event.content_hash, True, seq
    mark(file.life, at, True)

    key = (event.repo, event.path)
    old = graph.file_symbols.get(key, set())
    for qualname in old:
        idx = graph.find(("symbol", event.repo, qualname))
        if idx is not None:
            graph.unlink_out(idx, OWNED)
    graph.unlink_out(fidx, FILE_OWNED)
    had_module = event.module in repo.modules
    before = {q: repo.symbols[q].name for q in old if q in repo.symbols}
    repo.drop_file(event.path)
    repo.add_file(event.path, event.module, event.language, event.imports)

    current: set[str] = set()
    fresh_names: set[str] = set()
    for symbol in event.symbols:
        _, node = graph.ensure(SymbolNode(event.repo, symbol.qualname))
        never_seen, revived = not node.life, bool(node.life) and not alive_now(node.life)
        changed = node.digest != symbol.digest
        node.name, node.kind, node.path = symbol.name, symbol.kind, event.path
        node.start_line, node.end_line, node.parent = symbol.start_line, symbol.end_line, symbol.parent
        node.signature, node.digest, node.seq = symbol.signature, symbol.digest, seq
        node.doc = symbol_doc(symbol.docstring)
        if never_seen:
            node.history.append((at, symbol.digest, event.commit))
            node.first_indexed = first
            if not first:
                node.changed_at = at
            for when, sha in graph.early_history.pop((event.repo, symbol.qualname), []):
                node.history.append((when, "", sha))
                node.changed_at = max(node.changed_at or when, when)
            node.history.sort()
        elif changed or revived:
            node.history.append((at, symbol.digest, event.commit))
            node.history.sort()
            node.changed_at = max(node.changed_at or at, at)
        mark(node.life, at, True)
        repo.add_symbol(symbol.qualname, SymFact(symbol.name, symbol.kind, symbol.parent, event.path))
        current.add(symbol.qualname)
        if before.get(symbol.qualname) != symbol.name:
            fresh_names.add(symbol.name)
    for qualname in old - current:
        idx = graph.find(("symbol", event.repo, qualname))
        if idx is not None:
            mark(graph.symbol_at(idx).life, at, False)
    graph.file_symbols[key] = current

    for symbol in event.symbols:
        parent = graph.find(("symbol", event.repo, symbol.parent)) if symbol.parent in current else None
        graph.link(
            fidx if parent is None else parent,
            graph.index[("symbol", event.repo, symbol.qualname)],
            "contains",
        )
    repo.imports[event.path] = event.imports
    repo.pending[event.path] = {"": sorted(event.refs, key=lambda r: r.kind != "inherits")}
    _resolve_pending(graph, repo, event.path, None)
    modules = set() if had_module else {event.module} - {""}
    keys = fresh_names | {repo.module_key(m) for m in modules}
    for path in sorted(repo.woken(fresh_names, modules) - {event.path}):
        _resolve_pending(graph, repo, path, keys)
    wake(graph, event.repo, event.path, fresh_names | current)


def apply_deleted(graph: GraphStore, event: FileDeleted, at: float, seq: int) -> None:
    idx = graph.find(("file", event.repo, event.path))
    if idx is None:
        return
    file = graph.g[idx]
    assert isinstance(file, FileNode)
    mark(file.life, at, False)
    file.seq = seq
    for qualname in graph.file_symbols.get((event.repo, event.path), set()):
        sidx = graph.find(("symbol", event.repo, qualname))
        if sidx is not None:
            mark(graph.symbol_at(sidx).life, at, False)
    graph.repo(event.repo).drop_file(event.path)


def _resolve_pending(graph: GraphStore, repo: RepoIndex, path: str, keys: set[str] | None) -> None:
    """Retry what ``path`` waits for under ``keys`` (all when None); what stays unresolved waits again.

    Pending references are grouped by the name they wait for, so a wake-up touches only its group;
    groups are visited in sorted order so a fold in another process (replay) resolves the same way.
    """
    fidx = graph.find(("file", repo.repo, path))
    if fidx is None:
        return
    if keys is None or keys & repo.pending_imports.get(path, set()):
        _link_imports(graph, repo, path, fidx)
    refs = repo.pending.setdefault(path, {})
    groups = sorted(refs) if keys is None else sorted(k for k in keys if k in refs)
    retry = [ref for key in groups for ref in refs.pop(key)]
    for ref in sorted(retry, key=lambda r: r.kind != "inherits"):  # bases first: ``self.x`` looks in them
        _resolve_ref(graph, repo, path, fidx, ref)


def _link_imports(graph: GraphStore, repo: RepoIndex, path: str, fidx: int) -> None:
    """All of the file's ``imports`` edges again (an import may now name a submodule seen since)."""
    graph.unlink_out(fidx, IMPORTS)
    awaited: set[str] = set()
    for imp in repo.imports.get(path, ()):
        target, keys = repo.import_target(path, imp)
        tidx = graph.find(("file", repo.repo, target)) if target else None
        if tidx is not None and tidx != fidx:
            graph.link(fidx, tidx, "imports")
        awaited |= keys
    repo.pending_imports[path] = awaited
    for key in sorted(awaited):
        repo.wait(path, key)


def _resolve_ref(graph: GraphStore, repo: RepoIndex, path: str, fidx: int, ref: CodeRef) -> None:
    found = repo.resolve(path, ref)
    if found is None:
        awaited = repo.awaited(path, ref)
        if awaited:
            repo.pending[path].setdefault(awaited, []).append(ref)
            repo.wait(path, awaited)
        return
    src = graph.find(("symbol", repo.repo, ref.source))
    dst = graph.index[("symbol", repo.repo, found)]
    graph.link(fidx if src is None else src, dst, ref.kind)
    if ref.kind == "inherits" and ref.source in repo.symbols:
        repo.add_base(ref.source, found)
