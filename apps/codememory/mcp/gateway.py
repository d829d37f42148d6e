"""The MCP server's way to the gateway: async gRPC with the user's token, failures as ``ToolError``.

The server outlives stacks: an agent starts it with its session, possibly before ``codememory up``,
and the stack may restart on another port. So the address and token are looked up on every call
(``runtime.json`` and ``token`` in the home; ``CODEMEMORY_GRPC_ADDRESS`` and ``CODEMEMORY_TOKEN``
win, as for the CLI) and a channel is kept per address. No call raises anything but ``ToolError``.
"""

from __future__ import annotations

import os
from typing import Any

import grpc

from codememory.mcp.errors import GatewayUnavailableError, ToolError, from_rpc
from codememory.mcp.settings import McpSettings
from codememory.runtime.home import NotRunningError, grpc_root_certificate, local_token, read_runtime
from codememory.v1 import code_pb2_grpc, consolidation_pb2_grpc, memory_pb2_grpc


class Gateway:
    """Calls ``MemoryService``, ``CodeService`` and ``ConsolidationService`` methods by name."""

    def __init__(self, settings: McpSettings) -> None:
        self._settings = settings
        self._address = ""
        self._channel: grpc.aio.Channel | None = None

    def _target(self) -> tuple[str, str]:
        try:
            home = self._settings.home
            address = os.environ.get("CODEMEMORY_GRPC_ADDRESS") or read_runtime(home).grpc_address
            token = os.environ.get("CODEMEMORY_TOKEN") or local_token(home)
        except NotRunningError as exc:
            raise GatewayUnavailableError(str(exc)) from exc
        except OSError as exc:
            raise GatewayUnavailableError(f"cannot read the token in {self._settings.home}: {exc}") from exc
        return address, token

    async def _channel_for(self, address: str) -> grpc.aio.Channel:
        if self._channel is None or address != self._address:
            await self.close()
            ca = grpc_root_certificate(self._settings.home)  # up --tls: the local CA
            self._channel = (
                grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(ca))
                if ca
                else grpc.aio.insecure_channel(address)
            )
            self._address = address
        return self._channel

    async def memory(self, method: str, request: Any) -> Any:
        return await self._call(memory_pb2_grpc.MemoryServiceStub, method, request)

    async def code(self, method: str, request: Any) -> Any:
        return await self._call(code_pb2_grpc.CodeServiceStub, method, request)

    async def consolidation(self, method: str, request: Any) -> Any:
        return await self._call(consolidation_pb2_grpc.ConsolidationServiceStub, method, request)

    async def _call(self, stub_type: Any, method: str, request: Any) -> Any:
        address, token = self._target()
        stub = stub_type(await self._channel_for(address))
        try:
            return await getattr(stub, method)(
                request,
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=self._settings.timeout_s,
            )
        except grpc.aio.AioRpcError as exc:
            raise from_rpc(exc.code(), exc.details() or "", address) from exc
        except (grpc.RpcError, ValueError) as exc:  # a malformed address, a channel torn down under us
            raise GatewayUnavailableError(f"the gateway at {address} cannot be reached: {exc}") from exc

    async def close(self) -> None:
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.close()


__all__ = ["Gateway", "ToolError"]
