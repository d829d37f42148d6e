"""The ConsolidationService gRPC edge (``proto/codememory/v1/consolidation.proto``): merge by hand,
take a merge back.

A consolidation cycle merges restatements into one canonical memory when they are alike and state the
same thing. When it missed some (paraphrases it could not tell from other rules), ``Merge`` appends
the ``memories.merged`` a cycle would have. When it was wrong (two rules that only read alike),
``Unmerge`` appends ``memories.unmerged``: the memories are active and in recall again, the canonical
one loses them from its sources, and later cycles keep them apart. The work is ``GatewayCore.merge``
and ``unmerge`` (``corrections``); this module only translates (the caller's tenant from its token,
errors to status codes through ``rpc.rpc``).
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from codememory.gateway.core import GatewayCore
from codememory.gateway.rpccall import rpc
from codememory.v1 import consolidation_pb2 as cpb
from codememory.v1 import consolidation_pb2_grpc as cpb_grpc


class ConsolidationServicer(cpb_grpc.ConsolidationServiceServicer):
    def __init__(self, core: GatewayCore, tokens: Mapping[str, str]) -> None:
        self.core = core
        self.tokens = tokens  # read by ``rpc`` for the caller's tenant

    @rpc
    async def Merge(
        self, tenant: str, request: cpb.MergeRequest, context: grpc.aio.ServicerContext
    ) -> cpb.MergeResponse:
        written = await self.core.merge(tenant, request.canonical_id, request.memory_ids, request.reason)
        return cpb.MergeResponse(canonical_id=written.memory_id, memory_ids=written.others, seq=written.seq)

    @rpc
    async def Unmerge(
        self, tenant: str, request: cpb.UnmergeRequest, context: grpc.aio.ServicerContext
    ) -> cpb.UnmergeResponse:
        written = await self.core.unmerge(tenant, request.canonical_id, request.memory_ids, request.reason)
        return cpb.UnmergeResponse(canonical_id=written.memory_id, memory_ids=written.others, seq=written.seq)
