"""The CodeService servicer: thin methods over ``CodeCore`` and the graph queries.

Tenant, deadlines and errors are handled by the same ``rpc`` wrapper as MemoryService. Every graph
query has one shape, ``_ask``: a query over the tenant's graph and a converter of its answer (from
``codeconvert``), both run in a worker thread because both take the graph's lock (the queries of
``codegraph.queries`` take it; nothing here touches it). An empty name is
INVALID_ARGUMENT; Neighbours and Dependents answer at most ``MAX_GRAPH_NODES``, the nearest first, and
say ``truncated`` when there were more.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import grpc
import msgspec

from codememory.codegraph import CodeGraph, queries
from codememory.codegraph.temporal import ChangeSet
from codememory.codegraph.views import NodeRef
from codememory.gateway import codeintake
from codememory.gateway.codeconvert import (
    as_of_message,
    changes_message,
    co_changed_message,
    code_hit_message,
    history_message,
    nodes_message,
    path_message,
    review_message,
    stale_files_message,
    symbol_info_message,
)
from codememory.gateway.codecore import CodeCore
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.rpccall import rpc
from codememory.review import Limits, Review, review
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc as cpb_grpc

_DIRECTIONS = ("out", "in", "both")
MAX_GRAPH_NODES = 1000  # the most nodes Neighbours and Dependents answer (code.proto says so)
T = TypeVar("T")
R = TypeVar("R")


def _repo(request: Any) -> str | None:
    return request.repo or None


def _required(**names: str) -> None:
    """An empty name is a malformed request (INVALID_ARGUMENT), not a node that is not found."""
    for field, value in names.items():
        if not value.strip():
            raise InvalidArgument(f"{field} is empty: name a file or symbol")


def _capped(
    graph: CodeGraph, found: Sequence[queries.Neighbour | queries.Dependent]
) -> cpb.GraphNodesResponse:
    return nodes_message(graph, found, cap=MAX_GRAPH_NODES)


def _symbol_ref(graph: CodeGraph, request: cpb.SymbolInfoRequest) -> NodeRef:
    """The symbol a request names (its qualname, or a bare name), as a reference."""
    info = queries.symbol_info(graph, request.symbol, _repo(request))[0]
    return NodeRef(kind="symbol", name=info.qualname, repo=info.repo)


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

        recorded, last_seq = await codeintake.record(self.core, tenant, facts())  # off the loop, parallel
        return cpb.RecordCodeResponse(recorded=recorded, last_seq=last_seq)

    @rpc
    async def IndexedFiles(
        self, tenant: str, request: cpb.IndexedFilesRequest, context: Any
    ) -> cpb.IndexedFilesResponse:
        codeintake.shared_intake().warm()  # RecordCode streams follow: its workers start meanwhile
        hashes = await asyncio.to_thread(self.core.indexed_files, tenant, request.repo)
        return cpb.IndexedFilesResponse(content_hashes=hashes)

    @rpc
    async def LastCommit(
        self, tenant: str, request: cpb.LastCommitRequest, context: Any
    ) -> cpb.LastCommitResponse:
        return cpb.LastCommitResponse(
            sha=await asyncio.to_thread(self.core.last_commit, tenant, request.repo)
        )

    async def _ask(
        self, tenant: str, query: Callable[[CodeGraph], T], convert: Callable[[CodeGraph, T], R]
    ) -> R:
        """``query`` over the tenant's graph, then ``convert`` of its answer, in a worker thread."""
        graph = self.core.graph(tenant)
        return await asyncio.to_thread(lambda: convert(graph, query(graph)))

    @rpc
    async def SymbolInfo(
        self, tenant: str, request: cpb.SymbolInfoRequest, context: Any
    ) -> cpb.SymbolInfoResponse:
        _required(symbol=request.symbol)
        snapshot = self.core.centrality(tenant).snapshot

        def query(graph: CodeGraph) -> tuple[NodeRef, tuple[queries.Neighbour, ...]]:
            ref = _symbol_ref(graph, request)
            return ref, queries.neighbours(graph, ref, ["calls", "contains"], 1, "both")

        return await self._ask(
            tenant, query, lambda graph, found: symbol_info_message(graph, *found, snapshot)
        )

    @rpc
    async def Neighbours(
        self, tenant: str, request: cpb.NeighboursRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        _required(node=request.node)
        if (request.direction or "both") not in _DIRECTIONS:
            raise InvalidArgument(f"direction must be one of {_DIRECTIONS}")
        direction = cast("queries.Direction", request.direction or "both")
        kinds, depth = list(request.edge_kinds) or None, request.depth or 1

        def query(graph: CodeGraph) -> tuple[queries.Neighbour, ...]:
            start = self._ref(graph, request.node, request.repo)
            return queries.neighbours(graph, start, kinds, depth, direction, limit=MAX_GRAPH_NODES + 1)

        return await self._ask(tenant, query, _capped)

    @rpc
    async def Dependents(
        self, tenant: str, request: cpb.DependentsRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        _required(node=request.node)
        return await self._ask(
            tenant,
            lambda graph: queries.dependents(
                graph,
                self._ref(graph, request.node, request.repo),
                request.transitive,
                limit=MAX_GRAPH_NODES + 1,
            ),
            _capped,
        )

    @rpc
    async def PathBetween(
        self, tenant: str, request: cpb.PathBetweenRequest, context: Any
    ) -> cpb.PathBetweenResponse:
        _required(source=request.source, target=request.target)
        return await self._ask(
            tenant,
            lambda graph: queries.path_between(
                graph,
                self._ref(graph, request.source, request.repo),
                self._ref(graph, request.target, request.repo),
            ),
            path_message,
        )

    @rpc
    async def ChangedBetween(
        self, tenant: str, request: cpb.ChangedBetweenRequest, context: Any
    ) -> cpb.ChangedBetweenResponse:
        def query(graph: CodeGraph) -> ChangeSet:
            # like git's start..end: a start commit's own changes are not "between"
            start: str | float = request.start_commit or request.start_time
            end = request.end_commit or request.end_time or time.time()
            after = bool(request.start_commit)
            return queries.changed_between(graph, start, end, _repo(request), after_start=after)

        return await self._ask(tenant, query, lambda _, changes: changes_message(changes))

    @rpc
    async def GraphAsOf(
        self, tenant: str, request: cpb.GraphAsOfRequest, context: Any
    ) -> cpb.GraphAsOfResponse:
        when = request.commit or request.time
        if not when:
            raise InvalidArgument("say a commit or a time")

        def query(graph: CodeGraph) -> tuple[queries.Snapshot, dict[str, bool]]:
            snapshot = queries.graph_as_of(graph, when, _repo(request))
            return snapshot, {name: snapshot.contains(name, _repo(request)) for name in request.nodes}

        return await self._ask(tenant, query, lambda _, found: as_of_message(*found))

    @rpc
    async def SymbolHistory(
        self, tenant: str, request: cpb.SymbolInfoRequest, context: Any
    ) -> cpb.SymbolHistoryResponse:
        _required(symbol=request.symbol)

        def query(graph: CodeGraph) -> tuple[NodeRef, tuple[queries.HistoryEntry, ...]]:
            ref = _symbol_ref(graph, request)
            return ref, queries.symbol_history(graph, ref.name, ref.repo)

        return await self._ask(tenant, query, lambda graph, found: history_message(graph, *found))

    @rpc
    async def StaleCentralFiles(
        self, tenant: str, request: cpb.StaleCentralFilesRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        snapshot = self.core.centrality(tenant).snapshot
        days, now, limit = request.days or 90, time.time(), request.limit or 20
        return await self._ask(
            tenant,
            lambda graph: queries.stale_central_files(graph, snapshot, days, now, limit, _repo(request)),
            lambda _, found: stale_files_message(found),
        )

    @rpc
    async def CoChanged(
        self, tenant: str, request: cpb.CoChangedRequest, context: Any
    ) -> cpb.GraphNodesResponse:
        _required(path=request.path)
        return await self._ask(
            tenant,
            lambda graph: queries.co_changed_with(graph, request.path, request.limit or 10, _repo(request)),
            lambda _, found: co_changed_message(found),
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

    @rpc
    async def ReviewDiff(
        self, tenant: str, request: cpb.ReviewDiffRequest, context: Any
    ) -> cpb.ReviewDiffResponse:
        started = time.perf_counter()
        limits = Limits(
            depth=request.depth or 3,
            dependents=(request.max_dependents or 200) + 1,
            missing=request.max_missing or 20,
            history=request.max_history or 8,
            memories=request.max_memories or 20,
        )
        snapshot = self.core.centrality(tenant).snapshot
        suspects = self.core.relevance(tenant).suspects

        def query(graph: CodeGraph) -> Review:
            return review(
                graph,
                request.repo,
                request.diff,
                centrality=snapshot,
                suspects=suspects,
                limits=limits,
                side="new" if request.new_side else "old",
            )

        def convert(_: CodeGraph, found: Review) -> cpb.ReviewDiffResponse:
            cap = limits.dependents - 1
            trimmed = msgspec.structs.replace(found, dependents=found.dependents[:cap])
            took = (time.perf_counter() - started) * 1000
            return review_message(trimmed, truncated=len(found.dependents) > cap, took_ms=took)

        return await self._ask(tenant, query, convert)

    @staticmethod
    def _ref(graph: CodeGraph, name: str, repo: str) -> NodeRef | str:
        """The node ``name``; with ``repo``, in that repository (never another's node of that name)."""
        return name if not repo else queries.in_repo(graph, name, repo)
