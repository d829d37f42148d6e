"""What every gRPC method of the gateway does around its body: the one place errors become status codes.

Shared by every servicer (memory, code, browse, erasure, consolidation), so it is kept apart from any
one of them. ``rpc`` resolves the caller's tenant from its bearer token, binds request context for
the logs, honours the caller's deadline on the server side, and maps the gateway's typed errors to
status codes through ``status_of`` (never a bare exception to the client).
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import grpc
import structlog

from codememory.codegraph import GraphError, InvalidQueryError, UnknownNodeError
from codememory.codesearch import CodeSearchError, InvalidCodeInputError
from codememory.gateway.callers import tenant_of
from codememory.gateway.errors import (
    GatewayError,
    InvalidArgument,
    NotFound,
    NotReady,
    PermissionDenied,
    Unauthenticated,
)
from codememory.review import InvalidDiffError, ReviewError

__all__ = ["TRANSLATED", "rpc", "status_of"]

log = structlog.get_logger(__name__)
R = TypeVar("R")

_CODES: Mapping[type[Exception], grpc.StatusCode] = {
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    NotFound: grpc.StatusCode.NOT_FOUND,
    NotReady: grpc.StatusCode.UNAVAILABLE,
    UnknownNodeError: grpc.StatusCode.NOT_FOUND,
    InvalidQueryError: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidCodeInputError: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidDiffError: grpc.StatusCode.INVALID_ARGUMENT,
}
TRANSLATED = (GatewayError, GraphError, CodeSearchError, ReviewError)  # the errors a client is told


def status_of(exc: Exception) -> grpc.StatusCode:
    """The status code of a typed error: the nearest class in its MRO that has one; else INTERNAL."""
    for cls in type(exc).__mro__:
        if cls in _CODES:
            return _CODES[cls]
    return grpc.StatusCode.INTERNAL


def rpc(method: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> R:
        structlog.contextvars.bind_contextvars(rpc=method.__name__, request_id=str(uuid.uuid4()))
        try:
            tenant = tenant_of(context, self.tokens)
            structlog.contextvars.bind_contextvars(tenant=tenant)
            remaining = context.time_remaining()  # honour the caller's deadline on the server side too
            return await asyncio.wait_for(method(self, tenant, request, context), remaining)
        except TRANSLATED as exc:
            await context.abort(status_of(exc), str(exc))
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded")
        except Exception:
            log.exception("rpc_failed")
            await context.abort(grpc.StatusCode.INTERNAL, "internal error")
        finally:
            structlog.contextvars.unbind_contextvars("rpc", "request_id", "tenant")
        raise AssertionError("unreachable: abort raises")

    return wrapper
