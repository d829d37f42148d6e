"""The CodeService servicer: thin methods over ``CodeCore`` and the graph queries.

Tenant, deadlines and errors are handled by the same ``rpc`` wrapper as MemoryService; graph queries
run in a worker thread (they take the tenant graph's lock) and their answers are converted once, in
``codeconvert``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc

from codememory.codegraph import UnknownNodeError, queries
from codememory.codegraph.temporal import moment
from codememory.codegraph.views import NodeRef
from codememory.gateway.codeconvert import changes_message, code_hit_message, node_message
from codememory.gateway.codecore import CodeCore
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.rpc import rpc
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc as cpb_grpc

_DIRECTIONS = ("out", "in", "both")


def _repo(request: Any) -> str | None:
    return request.repo or None


class CodeServicer(cpb_grpc.CodeServiceServicer):
    def __init__(self, core: CodeCore, tokens: Mapping[str, str]) -> None:
        self.core = core
        self.tokens = tokens

    @rpc
    async def RecordCode(
        self, tenant: str, request: AsyncIterator[cpb.CodeFact], context: grpc.aio.ServicerContext
    ) -> cpb.RecordCodeResponse:
        async def facts() -> AsyncIterator[bytes]:
            async for fact in request:
                yield fact.event_json

        recorded, last_seq = await self.core.record(tenant, facts())
        return cpb.RecordCodeResponse(recorded=recorded, last_seq=last_seq)

    @rpc
    async def IndexedFiles(
        self, tenant: str, request: cpb.IndexedFilesRequest, context: Any
    ) -> cpb.IndexedFilesResponse:
        hashes = await asyncio.to_thread(self.core.indexed_files, tenant, request.repo)
        return cpb.IndexedFilesResponse(content_hashes=hashes)

    @rpc
    async def LastCommit(
        self, tenant: str, request: cpb.LastCommitRequest, context: Any
    ) -> cpb.LastCommitResponse:
        return cpb.LastCommitResponse(
            sha=await asyncio.to_thread(self.core.last_commit, tenant, request.repo)
        )

    @rpc
    async def SymbolInfo(
        self, tenant: str, request: cpb.SymbolInfoRequest, context: Any
    ) -> cpb.SymbolInfoResponse:
        graph = self.core.graph(tenant)
        snapshot = self.core.centrality(tenant).snapshot

        def run() -> cpb.SymbolInfoResponse:
            info = queries.symbol_info(graph, request.symbol, _repo(request))[0]
            ref = NodeRef(kind="symbol", name=info.qualname, repo=info.repo)
            near = queries.neighbours(graph, ref, ["calls", "contains"], 1, "both")
            callers = [n.node for n in near if n.edge == "calls" and not n.outgoing]
            callees = [n.node for n in near if n.edge == "calls" and n.outgoing]
            children = [n.node for n in near if n.edge == "contains" and n.outgoing]
            return cpb.SymbolInfoResponse(
                symbol=node_message(graph, ref, centrality=snapshot),
                callers=[node_message(graph, r, via="calls") for r in callers],
                callees=[node_message(graph, r, via="calls") for r in callees],
                children=[node_message(graph, r, via="contains") for r in children],
                betweenness=snapshot.betweenness.get(("symbol", info.repo, info.qualname), 0.0),
            )

        return await asyncio.to_thread(run)

    @rpc
    async def Neighbours(
        self, tenant: str, request: cpb.NeighboursRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        direction = request.direction or "both"
        if direction not in _DIRECTIONS:
            raise InvalidArgument(f"direction must be one of {_DIRECTIONS}")
        graph = self.core.graph(tenant)

        def run() -> cpb.GraphNodesResponse:
            found = queries.neighbours(
                graph, self._ref(graph, request.node, request.repo), list(request.edge_kinds) or None,
                request.depth or 1, direction,  # type: ignore[arg-type]
            )  # fmt: skip
            return cpb.GraphNodesResponse(
                nodes=[node_message(graph, n.node, depth=n.depth, via=n.edge) for n in found]
            )

        return await asyncio.to_thread(run)

    @rpc
    async def Dependents(
        self, tenant: str, request: cpb.DependentsRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        graph = self.core.graph(tenant)

        def run() -> cpb.GraphNodesResponse:
            found = queries.dependents(
                graph, self._ref(graph, request.node, request.repo), request.transitive
            )
            return cpb.GraphNodesResponse(
                nodes=[node_message(graph, d.node, depth=d.depth, via=d.edge) for d in found]
            )

        return await asyncio.to_thread(run)

    @rpc
    async def PathBetween(
        self, tenant: str, request: cpb.PathBetweenRequest, context: Any
    ) -> cpb.PathBetweenResponse:
        graph = self.core.graph(tenant)

        def run() -> cpb.PathBetweenResponse:
            steps = queries.path_between(
                graph,
                self._ref(graph, request.source, request.repo),
                self._ref(graph, request.target, request.repo),
            )
            return cpb.PathBetweenResponse(
                steps=[cpb.PathStep(node=node_message(graph, s.node), edge_kind=s.edge) for s in steps]
            )

        return await asyncio.to_thread(run)

    @rpc
    async def ChangedBetween(
        self, tenant: str, request: cpb.ChangedBetweenRequest, context: Any
    ) -> cpb.ChangedBetweenResponse:
        graph = self.core.graph(tenant)

        def run() -> cpb.ChangedBetweenResponse:
            # like git's start..end: a start commit's own changes are not "between"
            with graph.lock:
                start = request.start_time
                if request.start_commit:
                    start = moment(graph, request.start_commit) + 1e-3
                end = request.end_commit or request.end_time or time.time()
                return changes_message(queries.changed_between(graph, start, end, _repo(request)))

        return await asyncio.to_thread(run)

    @rpc
    async def GraphAsOf(
        self, tenant: str, request: cpb.GraphAsOfRequest, context: Any
    ) -> cpb.GraphAsOfResponse:
        when = request.commit or request.time
        if not when:
            raise InvalidArgument("say a commit or a time")
        graph = self.core.graph(tenant)

        def run() -> cpb.GraphAsOfResponse:
            snapshot = queries.graph_as_of(graph, when, _repo(request))
            exists = {name: snapshot.contains(name, _repo(request)) for name in request.nodes}
            return cpb.GraphAsOfResponse(
                files=snapshot.file_count, symbols=snapshot.symbol_count, exists=exists, time=snapshot.at
            )

        return await asyncio.to_thread(run)

    @rpc
    async def SymbolHistory(
        self, tenant: str, request: cpb.SymbolInfoRequest, context: Any
    ) -> cpb.SymbolHistoryResponse:
        graph = self.core.graph(tenant)

        def run() -> cpb.SymbolHistoryResponse:
            info = queries.symbol_info(graph, request.symbol, _repo(request))[0]
            entries = queries.symbol_history(graph, info.qualname, info.repo)
            ref = NodeRef(kind="symbol", name=info.qualname, repo=info.repo)
            changes = [  # an edit not yet committed has no sha: it is a change of the work tree
                cpb.CommitInfo(sha=e.commit, authored_at=e.at, message=e.summary, symbols=[info.qualname])
                for e in entries
            ]
            return cpb.SymbolHistoryResponse(symbol=node_message(graph, ref), changes=changes)

        return await asyncio.to_thread(run)

    @rpc
    async def StaleCentralFiles(
        self, tenant: str, request: cpb.StaleCentralFilesRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        graph = self.core.graph(tenant)
        snapshot = self.core.centrality(tenant).snapshot
        found = await asyncio.to_thread(
            queries.stale_central_files, graph, snapshot, request.days or 90, time.time(), request.limit or 20
        )
        return cpb.GraphNodesResponse(
            nodes=[
                cpb.GraphNode(
                    kind="file", key=f.path, repo=f.repo, path=f.path, pagerank=f.pagerank, score=f.pagerank
                )
                for f in found
                if not request.repo or f.repo == request.repo
            ]
        )

    @rpc
    async def CoChanged(
        self, tenant: str, request: cpb.CoChangedRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        graph = self.core.graph(tenant)
        found = await asyncio.to_thread(
            queries.co_changed_with, graph, request.path, request.limit or 10, _repo(request)
        )
        return cpb.GraphNodesResponse(
            nodes=[
                cpb.GraphNode(kind="file", key=c.path, repo=c.repo, path=c.path, score=c.count) for c in found
            ]
        )

    @rpc
    async def SearchCode(
        self, tenant: str, request: cpb.SearchCodeRequest, context: Any
    ) -> cpb.SearchCodeResponse:
        hits, took_ms = await self.core.search(
            tenant,
            request.query,
            limit=request.limit or 10,
            repo=request.repo,
            path_prefix=request.path_prefix,
        )
        return cpb.SearchCodeResponse(hits=[code_hit_message(h) for h in hits], took_ms=took_ms)

    @staticmethod
    def _ref(graph: Any, name: str, repo: str) -> NodeRef | str:
        if not name:
            raise InvalidArgument("name a file or symbol")
        return name if not repo else _in_repo(graph, name, repo)


def _in_repo(graph: Any, name: str, repo: str) -> NodeRef | str:
    """The node in ``repo`` (never another repository's node of the same name)."""
    with graph.lock:
        for kind in ("symbol", "file"):
            if (kind, repo, name) in graph.index:
                return NodeRef(kind=kind, name=name, repo=repo)
        known = graph.repos.get(repo)
        if known is not None and name in known.by_name:  # a bare symbol name, resolved within the repo
            return name
    raise UnknownNodeError(f"{name} in {repo}")
