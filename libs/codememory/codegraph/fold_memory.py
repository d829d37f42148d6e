"""Folding memories: which files and symbols a memory is about (``mentions``) and its session.

A memory (any event ``memory_from_envelope`` turns into one) gets a node, an ``in_session`` edge to
its session, and ``mentions`` edges chosen by these rules, within the memory's repository when the
graph knows it (else every repository of the tenant):

* files: each of its ``paths`` and each path-like token of its text (``a/b.py``, ``/abs/x/a/b.py``,
  ``C:\\x\\a.py``) links to the files whose repository-relative path equals it, is a suffix of it (an
  absolute path), or ends with it (``requests/api.py``); a bare file name (``api.py``) only when exactly
  one file has that name.
* symbols: an identifier of the text links to the symbol with that qualname; a dotted name
  (``Session.request``) to the at most two symbols whose qualname ends with it; a bare name only when it
  is >= 4 characters, defined at most twice in the repository, and looks like code (has ``_``, a digit,
  an inner capital, or is written ``name(`` or in backticks): plain words such as ``request`` or
  ``session`` in prose never link on their own.

Names or files not in the graph yet are remembered; when a file or symbol of that name arrives the
memory is linked again, so memories stored before ``codememory index`` ran still find their code.
``MemoryForgotten`` removes the node (and a later store of the same id is ignored); ``MemoryRefined``
with new text re-links.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from codememory.codegraph.model import MemoryNode, SessionNode, SymbolNode, alive_now
from codememory.codegraph.store import GraphStore
from codememory.events import Envelope
from codememory.memory.draft import memory_from_envelope

__all__ = ["apply_memory", "forget", "link_mentions", "refine", "wake"]

MENTIONS = frozenset({"mentions"})
_PATH = re.compile(r"(?:[A-Za-z]:)?[\w.\-/\\@+]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,7}\b")
# every path-like token holds one of these; ``_PATH`` backtracks over each word of a text, so a text
# without one (most prose) is not scanned
_PATH_HINT = re.compile(r"[\w\-]\.[A-Za-z]")
_IDENT = re.compile(r"(`?)([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(`|\()?")
_CODEY = re.compile(r"_|\d|[a-z][A-Z]")
_DRIVE = re.compile(r"^[A-Za-z]:")
_MAX_SUFFIX_HITS = 2


def apply_memory(graph: GraphStore, envelope: Envelope, seq: int) -> None:
    draft = memory_from_envelope(envelope)
    if draft is None or draft.memory_id in graph.forgotten or ("memory", draft.memory_id) in graph.index:
        return
    node = MemoryNode(
        draft.memory_id,
        draft.created_at,
        draft.session_id,
        draft.repo,
        tuple(draft.paths),
        draft.text,
        seq,
        draft.memory_type,
    )
    midx, _ = graph.ensure(node)
    if draft.session_id:
        sidx, _ = graph.ensure(SessionNode(draft.session_id))
        graph.link(midx, sidx, "in_session")
    link_mentions(graph, midx)


def forget(graph: GraphStore, memory_id: str) -> None:
    graph.forgotten.add(memory_id)
    graph.remove(("memory", memory_id))


def refine(graph: GraphStore, memory_id: str, text: str) -> None:
    idx = graph.find(("memory", memory_id))
    if idx is not None and text:
        node = graph.g[idx]
        assert isinstance(node, MemoryNode)
        node.text = text
        link_mentions(graph, idx)


def wake(graph: GraphStore, repo: str, path: str, names: set[str]) -> None:
    """Re-link the memories that were waiting for this file's name or one of these symbol names."""
    waiting: set[str] = set()
    for token in (path.rsplit("/", 1)[-1], *names):
        waiting |= graph.mention_waiters.pop(token, set())
    for memory_id in sorted(waiting):
        idx = graph.find(("memory", memory_id))
        if idx is not None:
            link_mentions(graph, idx)


def link_mentions(graph: GraphStore, midx: int) -> None:
    """Each distinct token of the text is looked up once (a memory names the same file or symbol
    often); before any code is recorded (no repository: replay folds memories first) only the
    waiters are written, which is all the lookups would do then."""
    memory = graph.g[midx]
    assert isinstance(memory, MemoryNode)
    kept = {
        d
        for d, _ in graph.out(midx, MENTIONS)
        if isinstance(graph.g[d], SymbolNode) and not _alive_symbol(graph, d)
    }
    graph.unlink_out(midx, MENTIONS)
    text = memory.text
    found = _PATH.findall(text) if _PATH_HINT.search(text) else ()
    files = dict.fromkeys((*memory.paths, *found))
    idents = _IDENT.findall(text)
    if not graph.repos:
        _wait_for_all(graph, memory.memory_id, files, {name for _, name, _ in idents})
        targets: set[int] = kept
    else:
        repos = [memory.repo] if memory.repo in graph.repos else sorted(graph.repos)
        targets = kept  # code removed since it was linked stays linked: that makes it suspect
        for raw in files:
            targets |= _files(graph, memory, raw, repos)
        for name, quoted in dict.fromkeys((name, bool(lq) or bool(rq)) for lq, name, rq in idents):
            targets |= _symbols(graph, memory, name.replace("::", "."), quoted, repos)
    for target in sorted(targets):
        graph.link(midx, target, "mentions")


def _wait_for_all(graph: GraphStore, memory_id: str, files: Iterable[str], names: Iterable[str]) -> None:
    """What ``_files`` and ``_symbols`` do when the graph has no repository: nothing is found, so
    the memory waits for every file name and every name long enough to link."""
    tokens = []
    for raw in files:
        base = _file_token(raw).rsplit("/", 1)[-1]
        if base and "." in base:
            tokens.append(base)
    for name in names:
        last = name.replace("::", ".").rsplit(".", 1)[-1] if "." in name or ":" in name else name
        if len(last) >= 4:
            tokens.append(last)
    waiters = graph.mention_waiters
    for token in tokens:
        waiting = waiters.get(token)
        if waiting is None:
            waiters[token] = {memory_id}
        else:
            waiting.add(memory_id)


def _file_token(raw: str) -> str:
    """A path-like token as a repository-relative path (separators, leading ``./``, a drive)."""
    token = raw.replace("\\", "/").lstrip("./") if not raw.startswith("..") else raw.replace("\\", "/")
    return token.split(":", 1)[-1].lstrip("/") if _DRIVE.match(token) else token.lstrip("/")


def _files(graph: GraphStore, memory: MemoryNode, raw: str, repos: list[str]) -> set[int]:
    token = _file_token(raw)
    base = token.rsplit("/", 1)[-1]
    if not base or "." not in base:
        return set()
    found = [
        (repo, path)
        for repo, path in graph.basenames.get(base, ())
        if repo in repos and (path == token or token.endswith("/" + path) or path.endswith("/" + token))
    ]
    if not found:
        graph.mention_waiters.setdefault(base, set()).add(memory.memory_id)
        return set()
    if token == base and len(found) > 1:
        return set()
    return {graph.index[("file", repo, path)] for repo, path in found}


def _symbols(graph: GraphStore, memory: MemoryNode, name: str, quoted: bool, repos: list[str]) -> set[int]:
    last = name.rsplit(".", 1)[-1]
    hits: set[int] = set()
    waiting = True
    for repo_name in repos:
        repo = graph.repo(repo_name)
        if name in repo.symbols:
            hits.add(graph.index[("symbol", repo_name, name)])
            continue
        defined = sorted(repo.by_name.get(last, ()))
        if defined:
            waiting = False
        if "." in name:
            ends = [q for q in defined if q.endswith("." + name)]
            if 0 < len(ends) <= _MAX_SUFFIX_HITS:
                hits.update(graph.index[("symbol", repo_name, q)] for q in ends)
                continue
        looks_like_code = quoted or bool(_CODEY.search(last))
        if "." not in name and len(last) >= 4 and looks_like_code and 0 < len(defined) <= _MAX_SUFFIX_HITS:
            hits.update(graph.index[("symbol", repo_name, q)] for q in defined)
    hits = {h for h in hits if _alive_symbol(graph, h)}
    if not hits and waiting and len(last) >= 4:
        graph.mention_waiters.setdefault(last, set()).add(memory.memory_id)
    return hits


def _alive_symbol(graph: GraphStore, idx: int) -> bool:
    node = graph.g[idx]
    return isinstance(node, SymbolNode) and alive_now(node.life)
