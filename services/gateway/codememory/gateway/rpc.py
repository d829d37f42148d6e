"""The memory service's gRPC servicer: thin methods over ``GatewayCore``, one per RPC of memory.proto.

Each method turns its request into the core's arguments and the core's answer into a reply; what
every call does around that (the caller's tenant, the logs' context, the deadline, typed errors as
status codes) is ``rpccall.rpc``'s, shared with the other servicers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import replace

import grpc
import msgspec
import structlog

from codememory.gateway.callers import is_admin, require_admin, tenant_of
from codememory.gateway.clamps import clamp_importance, clamp_memory
from codememory.gateway.codeintake import shared_intake
from codememory.gateway.convert import (
    consolidate_message,
    history_message,
    hit_message,
    import_response,
    imported_memory,
    memory_message,
    new_memory,
    recall_query,
)
from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import PermissionDenied, Unauthenticated
from codememory.gateway.importing import WORKERS_AFTER, ImportRun
from codememory.gateway.rpccall import TRANSLATED, rpc, status_of
from codememory.gateway.status import StatusSource
from codememory.recall import ContextRequest, RecallHit
from codememory.recall.codeaware import CodeAwareHit
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc as pb_grpc

log = structlog.get_logger(__name__)

REPLAY_PROGRESS_S = 0.25  # between ReplayWatch's progress messages
IMPORT_WAIT_S = 600.0  # for the projection after the last batch, when the caller set no deadline
CodeRank = Callable[[str, Sequence[RecallHit], Sequence[str], str], list[CodeAwareHit]]
MAX_RECALL = 500


def _code_hit(ranked: CodeAwareHit) -> pb.Hit:
    message = hit_message(ranked.hit)
    message.score.graph = ranked.graph
    message.score.centrality = ranked.centrality
    message.score.named = ranked.named
    message.suspect = ranked.suspect
    return message


def _importance(request: pb.RefineRequest, admin: bool) -> float | None:
    """A refined importance, clamped unless an admin sets it (``clamps.py``)."""
    importance = request.importance if request.HasField("importance") else None
    return importance if admin else clamp_importance(importance)


class MemoryServicer(pb_grpc.MemoryServiceServicer):
    def __init__(
        self,
        core: GatewayCore,
        tokens: Mapping[str, str],
        status: StatusSource,
        replay: Callable[[], Awaitable[pb.ReplayResponse]],
        code_rank: CodeRank | None = None,
        admin_tokens: Collection[str] = frozenset(),
        code_pool: int = 50,
        replay_phase: Callable[[], str] = lambda: "",
        import_workers_after: int = WORKERS_AFTER,
    ) -> None:
        self.core = core
        self._import_workers_after = import_workers_after
        self._replay_phase = replay_phase  # after the fold: "code", "indexing", "finishing"
        self._code_pool = code_pool
        self.admin_tokens = admin_tokens
        self._code_rank = code_rank
        self.tokens = tokens
        self._status = status
        self._replay = replay

    @rpc
    async def Recall(
        self, tenant: str, request: pb.RecallRequest, context: grpc.aio.ServicerContext
    ) -> pb.RecallResponse:
        started = time.perf_counter()
        query = recall_query(tenant, request)
        working_set = list(request.working_set)
        if working_set:  # re-ranking by code can lift memories from below the cut: ask for more
            pool = max(query.limit * 3, self._code_pool)
            query = msgspec.structs.replace(query, limit=min(MAX_RECALL, pool))
        code_rank = self._code_rank

        def rank(hits: list[RecallHit]) -> list[pb.Hit]:
            ranked = code_rank(tenant, hits, working_set, request.query) if code_rank else []
            return [hit_message(h) for h in hits] if not ranked else [_code_hit(r) for r in ranked]

        messages = await self.core.recall_then(query, rank)  # one worker-thread hop, messages included
        return pb.RecallResponse(
            hits=messages[: request.limit or 10], took_ms=(time.perf_counter() - started) * 1000
        )

    @rpc
    async def SessionContext(
        self, tenant: str, request: pb.SessionContextRequest, context: grpc.aio.ServicerContext
    ) -> pb.SessionContextResponse:
        asked = ContextRequest(
            tenant=tenant,
            repo=request.repo,
            branch=request.branch,
            cwd=request.cwd,
            session_id=request.session_id,
            prompt=request.prompt,
            budget_tokens=request.budget_tokens or 1500,
        )
        ctx = await self.core.context(asked)
        return pb.SessionContextResponse(context=ctx.text, tokens=ctx.tokens, memory_ids=list(ctx.memory_ids))

    @rpc
    async def Store(
        self, tenant: str, request: pb.StoreRequest, context: grpc.aio.ServicerContext
    ) -> pb.MutationResponse:
        memory = clamp_memory(new_memory(request), admin=is_admin(context, self.admin_tokens))
        written = await self.core.store(tenant, memory)
        return pb.MutationResponse(memory_id=written.memory_id, seq=written.seq)

    @rpc
    async def Refine(
        self, tenant: str, request: pb.RefineRequest, context: grpc.aio.ServicerContext
    ) -> pb.MutationResponse:
        written = await self.core.refine(
            tenant,
            request.memory_id,
            text=request.text,
            importance=_importance(request, is_admin(context, self.admin_tokens)),
            tags=list(request.tags) if (request.tags or request.replace_tags) else None,
        )
        return pb.MutationResponse(memory_id=written.memory_id, seq=written.seq)

    @rpc
    async def Deprecate(
        self, tenant: str, request: pb.DeprecateRequest, context: grpc.aio.ServicerContext
    ) -> pb.MutationResponse:
        written = await self.core.deprecate(tenant, request.memory_id, request.reason)
        return pb.MutationResponse(memory_id=written.memory_id, seq=written.seq)

    @rpc
    async def Forget(
        self, tenant: str, request: pb.ForgetRequest, context: grpc.aio.ServicerContext
    ) -> pb.MutationResponse:
        written = await self.core.forget(tenant, request.memory_id, request.reason)
        return pb.MutationResponse(memory_id=written.memory_id, seq=written.seq)

    async def Export(
        self, request: pb.ExportRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.Memory]:
        try:
            tenant = tenant_of(context, self.tokens)
        except Unauthenticated as exc:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
            return
        async for row in self.core.export(tenant, request.repo):
            yield memory_message(row)

    @rpc
    async def Status(
        self, tenant: str, request: pb.StatusRequest, context: grpc.aio.ServicerContext
    ) -> pb.StatusResponse:
        require_admin(context, self.admin_tokens)
        return await self._status.status()

    @rpc
    async def Replay(
        self, tenant: str, request: pb.ReplayRequest, context: grpc.aio.ServicerContext
    ) -> pb.ReplayResponse:
        require_admin(context, self.admin_tokens)
        return await self._replay()

    async def ReplayWatch(
        self, request: pb.ReplayRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ReplayProgress]:
        """Replay with progress; a client that goes away does not stop the replay (it swaps at its end)."""
        try:
            tenant_of(context, self.tokens)
            require_admin(context, self.admin_tokens)
        except (Unauthenticated, PermissionDenied) as exc:
            await context.abort(status_of(exc), str(exc))
            return
        task = asyncio.ensure_future(self._replay())
        folded = False
        while not task.done():
            await asyncio.wait({task}, timeout=REPLAY_PROGRESS_S)
            rebuilding = self.core.live.rebuilding
            folded = folded or rebuilding is not None
            seq, until = rebuilding or (0, 0)
            phase = (
                "memory" if rebuilding else ((self._replay_phase() or "finishing") if folded else "starting")
            )
            yield pb.ReplayProgress(phase=phase, seq=seq, until=until)
        try:
            result = task.result()
        except TRANSLATED as exc:
            await context.abort(status_of(exc), str(exc))
            return
        except Exception:
            log.exception("replay_failed")
            await context.abort(grpc.StatusCode.INTERNAL, "internal error")
            return
        yield pb.ReplayProgress(phase="done", seq=result.events, until=result.events, result=result)

    @rpc
    async def Consolidate(
        self, tenant: str, request: pb.ConsolidateRequest, context: grpc.aio.ServicerContext
    ) -> pb.ConsolidateResponse:
        return consolidate_message(await self.core.consolidate(tenant))

    @rpc
    async def Supersede(
        self, tenant: str, request: pb.SupersedeRequest, context: grpc.aio.ServicerContext
    ) -> pb.MutationResponse:
        written = await self.core.supersede(tenant, request.memory_id, request.superseded_by, request.reason)
        return pb.MutationResponse(memory_id=written.memory_id, seq=written.seq)

    @rpc
    async def History(
        self, tenant: str, request: pb.HistoryRequest, context: grpc.aio.ServicerContext
    ) -> pb.HistoryResponse:
        return history_message(await self.core.history(tenant, request.memory_id))

    @rpc
    async def Import(
        self, tenant: str, requests: AsyncIterator[pb.ImportRequest], context: grpc.aio.ServicerContext
    ) -> pb.ImportResponse:
        started = time.perf_counter()
        core = self.core
        after = self._import_workers_after
        run = ImportRun(
            tenant, core.live, core.event_log, core.clean_text, intake=shared_intake(), workers_after=after
        )
        wait_embedded: bool | None = None
        try:
            async for request in requests:
                if wait_embedded is None:
                    wait_embedded = request.wait_embedded
                if request.memories:
                    admin = is_admin(context, self.admin_tokens)
                    imported = [imported_memory(m) for m in request.memories]
                    await run.add([replace(m, memory=clamp_memory(m.memory, admin=admin)) for m in imported])
            remaining = context.time_remaining()
            tally = await run.finish(
                wait_embedded=bool(wait_embedded), timeout_s=IMPORT_WAIT_S if remaining is None else remaining
            )
        finally:
            run.release()  # a refused or cancelled import too
        return import_response(tally, time.perf_counter() - started)
