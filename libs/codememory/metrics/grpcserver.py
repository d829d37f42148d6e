"""A gRPC server interceptor: requests by method and status code, and latency by method.

Installed once on the gateway's ``grpc.aio`` server, so every service on it (memory, code, browse,
health, reflection) is measured the same way without a line in any servicer. The code is what the
servicer set (``context.abort`` sets it before raising); an exception that escaped is UNKNOWN, the
code gRPC itself answers then, and a cancelled call is CANCELLED. ``context.abort`` sends the status
before it raises, so an aborted call is counted just after its client has the answer.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from codememory.metrics.families import GRPC_REQUESTS, GRPC_SECONDS


def _code_name(context: grpc.aio.ServicerContext, failed: BaseException | None) -> str:
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(failed, asyncio.CancelledError):
        return str(grpc.StatusCode.CANCELLED.name)
    return "UNKNOWN" if failed is not None else "OK"


def _observe(
    method: str, context: grpc.aio.ServicerContext, started: float, failed: BaseException | None
) -> None:
    GRPC_SECONDS.labels(method=method).observe(time.perf_counter() - started)
    GRPC_REQUESTS.labels(method=method, code=_code_name(context, failed)).inc()


def _unary(method: str, behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def measured(request: Any, context: grpc.aio.ServicerContext) -> Any:
        started, failed = time.perf_counter(), None
        try:
            return await behaviour(request, context)
        except BaseException as exc:
            failed = exc
            raise
        finally:
            _observe(method, context, started, failed)

    return measured


def _streaming(
    method: str, behaviour: Callable[..., AsyncIterator[Any]]
) -> Callable[..., AsyncIterator[Any]]:
    async def measured(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        started, failed = time.perf_counter(), None
        try:
            async for item in behaviour(request, context):
                yield item
        except BaseException as exc:
            failed = exc
            raise
        finally:
            _observe(method, context, started, failed)

    return measured


def _either(method: str, behaviour: Any) -> Any:
    """A streaming response is an async generator, or a coroutine that calls ``context.write``
    (grpc's own health ``Watch``): each is wrapped as what it is."""
    return (
        _streaming(method, behaviour) if inspect.isasyncgenfunction(behaviour) else _unary(method, behaviour)
    )


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Wraps each method's behaviour; the handler's (de)serialisers are kept as they are."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = str(handler_call_details.method)  # /package.Service/Method
        codec = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(_unary(method, handler.unary_unary), **codec)
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(_either(method, handler.unary_stream), **codec)
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(_unary(method, handler.stream_unary), **codec)
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(_either(method, handler.stream_stream), **codec)
        return handler
