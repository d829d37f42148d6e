"""The gRPC server: the servicers, the shipped health service, reflection behind a setting, TLS when given.

``create_server`` binds and returns the port, so tests bind ``127.0.0.1:0``. Health is NOT_SERVING
until the projections have caught up with LOG; afterwards the watchdog (``watchdog.py``) turns it
NOT_SERVING while a projection is stalled and back when it recovers. With ``reuse_port`` (gRPC's
default on Linux) replicas on one host listen on the same address and the kernel spreads connections
over them; without it a taken port is a ``ListenError``.

``health_server``: a second, plain listener that answers ``grpc.health.v1`` only, from the same health
servicer, for a gateway whose API speaks TLS: the kubelet's native gRPC probes cannot speak TLS, and
the health answer (SERVING or not) tells nothing about any tenant (``CODEMEMORY_GATEWAY_HEALTH_LISTEN``).
"""

from __future__ import annotations

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from codememory.gateway.browse import BrowseServicer
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.erasure import ErasureServicer
from codememory.gateway.errors import ListenError
from codememory.gateway.rpc import MemoryServicer
from codememory.metrics import MetricsInterceptor
from codememory.v1 import (
    browse_pb2,
    browse_pb2_grpc,
    code_pb2,
    code_pb2_grpc,
    erasure_pb2,
    erasure_pb2_grpc,
    memory_pb2,
    memory_pb2_grpc,
)

SERVICE_NAME = memory_pb2.DESCRIPTOR.services_by_name["MemoryService"].full_name
CODE_SERVICE_NAME = code_pb2.DESCRIPTOR.services_by_name["CodeService"].full_name
BROWSE_SERVICE_NAME = browse_pb2.DESCRIPTOR.services_by_name["BrowseService"].full_name
ERASURE_SERVICE_NAME = erasure_pb2.DESCRIPTOR.services_by_name["ErasureService"].full_name
_SERVED = ("", SERVICE_NAME, CODE_SERVICE_NAME, BROWSE_SERVICE_NAME, ERASURE_SERVICE_NAME)


async def create_server(
    servicer: MemoryServicer,
    code_servicer: CodeServicer,
    listen: str,
    *,
    reflection_enabled: bool = True,
    reuse_port: bool = True,
    browse_servicer: BrowseServicer | None = None,
    erasure_servicer: ErasureServicer | None = None,
    tls: tuple[bytes, bytes] | None = None,
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """``tls``: (private key, certificate chain) in PEM; the server then speaks TLS only."""
    server = grpc.aio.server(
        interceptors=[MetricsInterceptor()],  # requests by method and code, latency: every service
        options=[
            ("grpc.max_receive_message_length", 8 * 1024 * 1024),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    memory_pb2_grpc.add_MemoryServiceServicer_to_server(servicer, server)
    code_pb2_grpc.add_CodeServiceServicer_to_server(code_servicer, server)
    if browse_servicer is not None:
        browse_pb2_grpc.add_BrowseServiceServicer_to_server(browse_servicer, server)
    if erasure_servicer is not None:
        erasure_pb2_grpc.add_ErasureServiceServicer_to_server(erasure_servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    await set_serving(health_servicer, False)
    if reflection_enabled:
        reflection.enable_server_reflection(
            (*_SERVED[1:], health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
    try:
        if tls is not None:
            port = server.add_secure_port(listen, grpc.ssl_server_credentials([tls]))
        else:
            port = server.add_insecure_port(listen)
    except RuntimeError as exc:  # grpc raises when it cannot bind
        await server.stop(None)  # an unstarted server still holds a poller task until stopped
        raise ListenError(listen) from exc
    if port == 0:
        await server.stop(None)
        raise ListenError(listen)
    return server, port, health_servicer


async def health_server(
    health_servicer: health.aio.HealthServicer, listen: str
) -> tuple[grpc.aio.Server, int]:
    """A plain server on ``listen`` with the health service only (not started), and its port."""
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    try:
        port = server.add_insecure_port(listen)
    except RuntimeError as exc:
        await server.stop(None)
        raise ListenError(listen) from exc
    if port == 0:
        await server.stop(None)
        raise ListenError(listen)
    return server, port


async def set_serving(health_servicer: health.aio.HealthServicer, serving: bool) -> None:
    status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
    for name in _SERVED:
        await health_servicer.set(name, status)
