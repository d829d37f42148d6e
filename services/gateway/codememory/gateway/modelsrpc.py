"""The ModelService gRPC edge (``proto/codememory/v1/models.proto``): start a model migration, follow it.

Admin tokens only: the model serves every tenant. A migration that cannot start now is
FAILED_PRECONDITION with the reason; an unknown token UNAUTHENTICATED, a tenant token PERMISSION_DENIED.
The work is ``modelswitch.ModelSwitch``; this module only translates.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import grpc
import structlog

from codememory.gateway.callers import is_admin, tenant_of
from codememory.gateway.errors import Unauthenticated
from codememory.gateway.modelswitch import MigrationRefused, MigrationState, ModelSwitch
from codememory.v1 import models_pb2 as mpb
from codememory.v1 import models_pb2_grpc as mpb_grpc

log = structlog.get_logger(__name__)


def status_message(state: MigrationState) -> mpb.MigrationStatus:
    return mpb.MigrationStatus(
        active_model=state.active_model,
        active_dim=state.active_dim,
        target_model=state.target_model,
        target_dim=state.target_dim,
        phase=state.phase,
        embedded=state.embedded,
        target=state.target,
        folded_seq=state.folded_seq,
        log_seq=state.log_seq,
        seconds=state.seconds,
        error=state.error,
    )


class ModelServicer(mpb_grpc.ModelServiceServicer):
    def __init__(self, switch: ModelSwitch, tokens: Mapping[str, str], admin_tokens: Collection[str]) -> None:
        self._switch = switch
        self._tokens = tokens
        self._admin_tokens = admin_tokens

    async def _admin(self, context: grpc.aio.ServicerContext) -> None:
        if is_admin(context, self._admin_tokens):
            return
        try:
            tenant_of(context, self._tokens)
        except Unauthenticated as exc:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "an admin token is needed")

    async def Reembed(
        self, request: mpb.ReembedRequest, context: grpc.aio.ServicerContext
    ) -> mpb.MigrationStatus:
        await self._admin(context)
        try:
            state = await self._switch.start(request.model)
        except MigrationRefused as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        log.info("reembed_started", model=state.target_model)
        return status_message(state)

    async def ModelStatus(
        self, request: mpb.ModelStatusRequest, context: grpc.aio.ServicerContext
    ) -> mpb.MigrationStatus:
        await self._admin(context)
        return status_message(self._switch.state)

    async def CancelMigration(
        self, request: mpb.ModelStatusRequest, context: grpc.aio.ServicerContext
    ) -> mpb.MigrationStatus:
        await self._admin(context)
        try:
            state = await self._switch.cancel()
        except MigrationRefused as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        log.info("reembed_cancelled", model=state.target_model)
        return status_message(state)
