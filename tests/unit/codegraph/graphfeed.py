"""A hand-made repository fed to a graph as LOG events, so graph tests need no extractor or git."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from codememory.codegraph import CodeGraph
from codememory.events import (
    CodeRef,
    CommitRecorded,
    Envelope,
    FileChange,
    FileDeleted,
    ImportRef,
    MemoryForgotten,
    MemoryScope,
    MemoryStored,
    Symbol,
    SymbolsExtracted,
    new_envelope,
)
from codememory.events.catalogue import Event

REPO = "acme/shop"
DAY = 86400.0
T0 = datetime(2026, 11, 1, tzinfo=UTC).timestamp()


def sym(
    qualname: str, kind: str = "function", parent: str = "", digest: str = "d0", lines: int = 1
) -> Symbol:
    return Symbol(
        qualname=qualname,
        name=qualname.rsplit(".", 1)[-1],
        kind=kind,  # type: ignore[arg-type]
        start_line=lines,
        end_line=lines + 3,
        parent=parent,
        digest=digest,
    )


def calls(source: str, target: str, kind: str = "calls") -> CodeRef:
    return CodeRef(kind=kind, source=source, target=target)  # type: ignore[arg-type]


def imp(module: str, name: str = "", alias: str = "") -> ImportRef:
    return ImportRef(module=module, name=name, alias=alias)


@dataclass
class Feed:
    """Applies events to a graph with increasing sequence numbers and a clock; keeps them for replay."""

    graph: CodeGraph = field(default_factory=lambda: CodeGraph("t1"))
    now: float = T0
    log: list[tuple[Envelope, int]] = field(default_factory=list)

    def emit(self, payload: Event, at: float | None = None) -> Envelope:
        at = self.now if at is None else at
        seq = len(self.log) + 1
        envelope = new_envelope(
            payload, event_id=f"e{seq}", tenant="t1", occurred_at=datetime.fromtimestamp(at, UTC)
        )
        self.log.append((envelope, seq))
        self.graph.apply(envelope, seq)
        return envelope

    def file(self, path: str, module: str, symbols: list[Symbol], imports=(), refs=(), at=None, h="h1"):  # type: ignore[no-untyped-def]
        mod = Symbol(
            qualname=module, name=module.rsplit(".", 1)[-1], kind="module", start_line=1, end_line=99
        )
        children = [s if s.parent else Symbol(**{**_fields(s), "parent": module}) for s in symbols]
        event = SymbolsExtracted(
            repo=REPO,
            path=path,
            content_hash=h,
            language="python",
            module=module,
            symbols=(mod, *children),
            imports=tuple(imports),
            refs=tuple(refs),
        )
        return self.emit(event, at)

    def delete(self, path: str, at: float | None = None) -> Envelope:
        return self.emit(FileDeleted(repo=REPO, path=path), at)

    def commit(self, sha: str, at: float, files: list[FileChange], parents: tuple[str, ...] = ()) -> Envelope:
        event = CommitRecorded(
            repo=REPO,
            sha=sha,
            parents=parents,
            authored_at=at,
            message=f"commit {sha}\n\nbody",
            files=tuple(files),
        )
        return self.emit(event, at)

    def memory(
        self, memory_id: str, text: str, at: float, paths: tuple[str, ...] = (), session: str = "s1"
    ) -> Envelope:
        created = datetime.fromtimestamp(at, UTC).isoformat()
        scope = MemoryScope(repo=REPO, session_id=session, paths=paths)
        return self.emit(MemoryStored(memory_id=memory_id, text=text, scope=scope, created_at=created), at)

    def forget(self, memory_id: str) -> Envelope:
        return self.emit(MemoryForgotten(memory_id=memory_id))


def _fields(s: Symbol) -> dict[str, object]:
    return {f: getattr(s, f) for f in s.__struct_fields__}


def shop(feed: Feed) -> Feed:
    """models (Base.save, Model(Base).validate -> self.save, helper), a re-exporting package, api."""
    feed.file(
        "pkg/models.py",
        "pkg.models",
        [
            sym("pkg.models.Base", "class"),
            sym("pkg.models.Base.save", "method", "pkg.models.Base"),
            sym("pkg.models.Model", "class"),
            sym("pkg.models.Model.validate", "method", "pkg.models.Model"),
            sym("pkg.models.helper"),
        ],
        refs=[
            calls("pkg.models.Model", "Base", "inherits"),
            calls("pkg.models.Model.validate", "self.save"),
            calls("pkg.models.Model.validate", "helper"),
        ],
    )
    feed.file("pkg/__init__.py", "pkg", [], imports=[imp("pkg.models", "Model")])
    feed.file(
        "pkg/api.py",
        "pkg.api",
        [sym("pkg.api.create"), sym("pkg.api.unused_thing")],
        imports=[imp("pkg.models", alias="m"), imp("pkg", "Model"), imp("os")],
        refs=[
            calls("pkg.api.create", "Model"),
            calls("pkg.api.create", "m.helper"),
            calls("pkg.api.create", "obj.validate"),
            calls("pkg.api.create", "os.path.join"),
            calls("pkg.api.create", "len"),
        ],
    )
    return feed


@pytest.fixture
def feed() -> Feed:
    return Feed()


@pytest.fixture
def shop_feed() -> Feed:
    return shop(Feed())


def edges(graph: CodeGraph, kind: str) -> set[tuple[str, str]]:
    """(source name, target name) of every edge of ``kind``: names are paths, qualnames, shas or ids."""

    def name(idx: int) -> str:
        return graph.g[idx].key[-1]

    return {(name(s), name(d)) for s, d, e in graph.g.weighted_edge_list() if e.kind == kind}
