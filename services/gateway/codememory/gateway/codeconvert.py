"""Graph answers to protobuf: one place that knows both the graph's values and ``code.proto``."""

from __future__ import annotations

from codememory.codegraph import CodeGraph
from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.model import SymbolNode
from codememory.codegraph.temporal import ChangeSet, CommitInfo
from codememory.codegraph.views import NodeRef
from codememory.codesearch import CodeHit
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
    with graph.lock:
        idx = (
            graph.index.get((ref.kind, ref.repo, ref.name))
            if ref.repo
            else graph.index.get((ref.kind, ref.name))
        )
        node = graph.g[idx] if idx is not None else None
    if isinstance(node, SymbolNode):
        message.qualname, message.name, message.symbol_kind = node.qualname, node.name, node.kind
        message.path, message.signature = node.path, node.signature
        message.start_line, message.end_line = node.start_line, node.end_line
        message.changed_at = node.changed_at or 0.0
    if centrality is not None and ref.kind in ("file", "symbol"):
        message.pagerank = centrality.normalised_pagerank((ref.kind, ref.repo, ref.name))
    return message


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
