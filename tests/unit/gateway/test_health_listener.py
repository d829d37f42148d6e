"""A gateway whose API speaks TLS answers the kubelet's plain gRPC probes on a health-only listener.

Real servers on loopback: the API port with a certificate from the local CA (``runtime.certs``), the
health port in the clear with ``grpc.health.v1`` and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from codememory.gateway.server import create_server, health_server, set_serving
from codememory.runtime.certs import local_tls
from codememory.v1 import code_pb2_grpc, memory_pb2, memory_pb2_grpc

CHECK = health_pb2.HealthCheckRequest(service="")


async def test_probes_reach_health_in_the_clear_and_nothing_else(tmp_path: Path) -> None:
    tls = local_tls(tmp_path / "tls")
    pem = (Path(tls.key).read_bytes(), Path(tls.cert).read_bytes())
    api, port, servicer = await create_server(
        memory_pb2_grpc.MemoryServiceServicer(),  # type: ignore[arg-type]
        code_pb2_grpc.CodeServiceServicer(),  # type: ignore[arg-type]
        "127.0.0.1:0",
        reflection_enabled=False,
        tls=pem,
    )
    probes, health_port = await health_server(servicer, "127.0.0.1:0")
    await api.start()
    await probes.start()
    try:
        await set_serving(servicer, True)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{health_port}") as plain:
            answer = await health_pb2_grpc.HealthStub(plain).Check(CHECK, timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.aio.AioRpcError) as err:  # no memory API on the health port
                await memory_pb2_grpc.MemoryServiceStub(plain).Status(memory_pb2.StatusRequest(), timeout=5)
            assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as clear:  # the API only over TLS
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await health_pb2_grpc.HealthStub(clear).Check(CHECK, timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        credentials = grpc.ssl_channel_credentials(Path(tls.ca).read_bytes())
        async with grpc.aio.secure_channel(f"127.0.0.1:{port}", credentials) as secure:  # the control
            answer = await health_pb2_grpc.HealthStub(secure).Check(CHECK, timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        await set_serving(servicer, False)  # one servicer: the probe follows the API's state
        async with grpc.aio.insecure_channel(f"127.0.0.1:{health_port}") as plain:
            answer = await health_pb2_grpc.HealthStub(plain).Check(CHECK, timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        await probes.stop(None)
        await api.stop(None)
