"""The BrowseService servicer: listing memories, sessions and events for the web view.

Thin like ``rpc.py`` (whose ``rpc`` wrapper resolves the tenant from the bearer token and turns typed
errors into status codes); the listing itself is ``browsing.py`` over the memory index, read in a
worker thread, and ``logpages.py`` over LOG.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import grpc

from codememory.gateway.browsing import MemoryQuery, list_memories, list_sessions
from codememory.gateway.convert import memory_message
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.logpages import TenantLog
from codememory.gateway.rpccall import rpc
from codememory.v1 import browse_pb2 as pb
from codememory.v1 import browse_pb2_grpc as pb_grpc
from codememory.vectorstore import VectorIndex

MAX_EVENTS = 500


class BrowseServicer(pb_grpc.BrowseServiceServicer):
    def __init__(self, index: Callable[[], VectorIndex], log: TenantLog, tokens: Mapping[str, str]) -> None:
        self._index = index  # the live memory index (replay swaps it: asked for on every call)
        self._log = log
        self.tokens = tokens

    @rpc
    async def ListMemories(
        self, tenant: str, request: pb.ListMemoriesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListMemoriesResponse:
        query = MemoryQuery(
            tenant=tenant,
            types=list(request.types),
            repo=request.repo,
            session_id=request.session_id,
            since=request.since,
            until=request.until,
            states=list(request.states),
            limit=request.limit,
            offset=request.offset,
        )
        index = self._index()
        rows, total = await asyncio.to_thread(list_memories, index, query)
        return pb.ListMemoriesResponse(memories=[memory_message(r) for r in rows], total=total)

    @rpc
    async def ListSessions(
        self, tenant: str, request: pb.ListSessionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListSessionsResponse:
        index = self._index()
        sessions = await asyncio.to_thread(list_sessions, index, tenant, request.repo, request.limit)
        return pb.ListSessionsResponse(
            sessions=[
                pb.SessionSummary(
                    session_id=s.session_id,
                    repo=s.repo,
                    agent=s.agent,
                    started_at=s.started_at,
                    last_at=s.last_at,
                    memories=s.memories,
                    types=dict(s.types),
                )
                for s in sessions
            ]
        )

    @rpc
    async def ReadEvents(
        self, tenant: str, request: pb.ReadEventsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ReadEventsResponse:
        if request.limit < 0:
            raise InvalidArgument("limit cannot be negative")
        page = await self._log.page(tenant, request.before_seq, min(request.limit or 50, MAX_EVENTS))
        return pb.ReadEventsResponse(
            events=[
                pb.LogEvent(
                    seq=e.seq,
                    event=e.event,
                    event_id=e.event_id,
                    occurred_at=e.occurred_at,
                    correlation_id=e.correlation_id,
                    summary=e.summary,
                )
                for e in page.events
            ],
            log_last_seq=page.log_last_seq,
            next_before_seq=page.next_before_seq,
        )
