"""Graph answers to protobuf: one place that knows both the graph's values and ``code.proto``.

A node's details come from ``codegraph.queries.symbol_of`` (a query: it takes the graph's lock itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from codememory.codegraph import CodeGraph, queries
from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.queries import CoChanged, Dependent, HistoryEntry, Neighbour, PathStep, StaleFile
from codememory.codegraph.temporal import ChangeSet, CommitInfo, Snapshot
from codememory.codegraph.views import NodeRef
from codememory.codesearch import CodeHit
from codememory.review import Review
from codememory.v1 import code_pb2 as cpb


def node_message(
    graph: CodeGraph,
    ref: NodeRef,
    *,
    centrality: CentralitySnapshot | None = None,
    score: float = 0.0,
    depth: int = 0,
    via: str = "",
) -> cpb.GraphNode:
    message = cpb.GraphNode(kind=ref.kind, key=ref.name, repo=ref.repo, score=score, depth=depth, via=via)
    if ref.kind == "file":
        message.path = ref.name
    symbol = queries.symbol_of(graph, ref) if ref.kind == "symbol" else None
    if symbol is not None:
        message.qualname, message.name, message.symbol_kind = symbol.qualname, symbol.name, symbol.kind
        message.path, message.signature, message.docstring = symbol.path, symbol.signature, symbol.docstring
        message.start_line, message.end_line = symbol.start_line, symbol.end_line
        message.changed_at = symbol.changed_at or 0.0
    if centrality is not None and ref.kind in ("file", "symbol"):
        message.pagerank = centrality.normalised_pagerank((ref.kind, ref.repo, ref.name))
    return message


def nodes_message(
    graph: CodeGraph, found: Sequence[Neighbour | Dependent], cap: int | None = None
) -> cpb.GraphNodesResponse:
    """Nodes reached from the node asked about, each with its depth and the edge that led to it.

    With ``cap``, the first ``cap`` of them, and ``truncated`` when ``found`` holds more.
    """
    return cpb.GraphNodesResponse(
        nodes=[node_message(graph, n.node, depth=n.depth, via=n.edge) for n in found[:cap]],
        truncated=cap is not None and len(found) > cap,
    )


def symbol_info_message(
    graph: CodeGraph, ref: NodeRef, near: Sequence[Neighbour], centrality: CentralitySnapshot
) -> cpb.SymbolInfoResponse:
    """A symbol with its callers, callees and children (``near``: its neighbours at depth 1)."""
    callers = [n.node for n in near if n.edge == "calls" and not n.outgoing]
    callees = [n.node for n in near if n.edge == "calls" and n.outgoing]
    children = [n.node for n in near if n.edge == "contains" and n.outgoing]
    return cpb.SymbolInfoResponse(
        symbol=node_message(graph, ref, centrality=centrality),
        callers=[node_message(graph, r, via="calls") for r in callers],
        callees=[node_message(graph, r, via="calls") for r in callees],
        children=[node_message(graph, r, via="contains") for r in children],
        betweenness=centrality.betweenness.get((ref.kind, ref.repo, ref.name), 0.0),
    )


def path_message(graph: CodeGraph, steps: Sequence[PathStep]) -> cpb.PathBetweenResponse:
    return cpb.PathBetweenResponse(
        steps=[cpb.PathStep(node=node_message(graph, s.node), edge_kind=s.edge) for s in steps]
    )


def as_of_message(snapshot: Snapshot, exists: Mapping[str, bool]) -> cpb.GraphAsOfResponse:
    return cpb.GraphAsOfResponse(
        files=snapshot.file_count, symbols=snapshot.symbol_count, exists=exists, time=snapshot.at
    )


def history_message(
    graph: CodeGraph, ref: NodeRef, entries: Sequence[HistoryEntry]
) -> cpb.SymbolHistoryResponse:
    changes = [  # an edit not yet committed has no sha: it is a change of the work tree
        cpb.CommitInfo(sha=e.commit, authored_at=e.at, message=e.summary, symbols=[ref.name]) for e in entries
    ]
    return cpb.SymbolHistoryResponse(symbol=node_message(graph, ref), changes=changes)


def stale_files_message(found: Sequence[StaleFile]) -> cpb.GraphNodesResponse:
    return cpb.GraphNodesResponse(
        nodes=[
            cpb.GraphNode(
                kind="file", key=f.path, repo=f.repo, path=f.path, pagerank=f.pagerank, score=f.pagerank
            )
            for f in found
        ]
    )


def co_changed_message(found: Sequence[CoChanged]) -> cpb.GraphNodesResponse:
    return cpb.GraphNodesResponse(
        nodes=[cpb.GraphNode(kind="file", key=c.path, repo=c.repo, path=c.path, score=c.count) for c in found]
    )


def commit_message(
    commit: CommitInfo, files: list[str] | None = None, symbols: list[str] | None = None
) -> cpb.CommitInfo:
    return cpb.CommitInfo(
        sha=commit.sha,
        authored_at=commit.authored_at,
        author=commit.author,
        message=commit.summary,
        files=files or [],
        symbols=symbols or [],
    )


def changes_message(changes: ChangeSet) -> cpb.ChangedBetweenResponse:
    return cpb.ChangedBetweenResponse(
        commits=[commit_message(c) for c in changes.commits],
        files=[path for _, path in changes.files],
        symbols=[qualname for _, qualname in changes.symbols],
    )


def code_hit_message(hit: CodeHit) -> cpb.CodeHit:
    return cpb.CodeHit(
        qualname=hit.qualname,
        repo=hit.repo,
        path=hit.path,
        kind=hit.kind,
        signature=hit.signature,
        start_line=hit.start_line,
        end_line=hit.end_line,
        dense=hit.parts.dense or 0.0,
        lexical=hit.parts.lexical or 0.0,
        score=hit.parts.fused,
        docstring=hit.docstring,
    )


def review_message(review: Review, *, truncated: bool, took_ms: float) -> cpb.ReviewDiffResponse:
    """A review as ``ReviewDiffResponse``: each part field by field."""
    risk = review.risk
    return cpb.ReviewDiffResponse(
        repo=review.repo,
        files=[
            cpb.ReviewFile(
                path=f.path,
                old_path=f.old_path,
                status=f.status,
                indexed=f.indexed,
                added_lines=f.added_lines,
                deleted_lines=f.deleted_lines,
            )
            for f in review.files
        ],
        changed=[
            cpb.ChangedSymbol(
                qualname=s.qualname,
                name=s.name,
                kind=s.kind,
                path=s.path,
                start_line=s.start_line,
                end_line=s.end_line,
                signature=s.signature,
                signature_changed=s.signature_changed,
                status=s.status,
            )
            for s in review.changed
        ],
        dependents=[
            cpb.ReviewDependent(
                kind=d.kind, name=d.name, path=d.path, edge=d.edge, distance=d.distance, via=d.via
            )
            for d in review.dependents
        ],
        risk=cpb.Risk(
            score=risk.score,
            level=risk.level,
            parts=[
                cpb.RiskPart(name=p.name, value=p.value, weight=p.weight, detail=p.detail) for p in risk.parts
            ],
        ),
        missing=[
            cpb.MissingChange(path=m.path, score=m.score, reason=m.reason, symbol=m.symbol or None)
            for m in review.missing
        ],
        memories=[
            cpb.ReviewMemory(
                id=m.memory_id,
                text=m.text,
                created_at=m.created_at,
                about=list(m.about),
                suspect=m.suspect,
                suspect_reason=m.suspect_reason,
            )
            for m in review.memories
        ],
        history=[
            cpb.ReviewCommit(
                sha=h.sha,
                subject=h.subject,
                authored_at=h.authored_at,
                author=h.author,
                score=h.score,
                reason=h.reason,
                symbols=list(h.symbols),
            )
            for h in review.history
        ],
        dependents_truncated=truncated,
        took_ms=took_ms,
    )
