"""The server interceptor on a real grpc.aio server: requests by method and code, latency by method,
for unary calls that succeed or abort and for a streaming call (grpc's own health service)."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from codememory.metrics import MetricsInterceptor

CHECK = "/grpc.health.v1.Health/Check"
WATCH = "/grpc.health.v1.Health/Watch"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_requests_are_counted_by_method_and_code() -> None:
    server = grpc.aio.server(interceptors=[MetricsInterceptor()])
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    await servicer.set("known", health_pb2.HealthCheckResponse.SERVING)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ok = value("codememory_grpc_requests_total", method=CHECK, code="OK")
    missing = value("codememory_grpc_requests_total", method=CHECK, code="NOT_FOUND")
    timed = value("codememory_grpc_request_seconds_count", method=CHECK)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            await stub.Check(health_pb2.HealthCheckRequest(service="known"))
            await stub.Check(health_pb2.HealthCheckRequest(service="known"))
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await stub.Check(health_pb2.HealthCheckRequest(service="unknown"))
            assert failed.value.code() is grpc.StatusCode.NOT_FOUND  # the servicer's answer is intact
            call = stub.Watch(health_pb2.HealthCheckRequest(service="known"))
            first = await call.read()
            assert first.status == health_pb2.HealthCheckResponse.SERVING
            call.cancel()
            await asyncio.sleep(0.2)
    finally:
        await server.stop(None)
    assert value("codememory_grpc_requests_total", method=CHECK, code="OK") == ok + 2
    assert value("codememory_grpc_requests_total", method=CHECK, code="NOT_FOUND") == missing + 1
    assert value("codememory_grpc_request_seconds_count", method=CHECK) == timed + 3
    assert value("codememory_grpc_request_seconds_count", method=WATCH) >= 1  # a stream, timed when it ended
