"""Why a tool call failed, as a typed tree, translated once from gRPC at the edge.

An agent can act on the reason: start the stack, fix an argument, ask for another token. So every
failure of a tool becomes one of these, and the server turns it into an MCP tool result with
``is_error`` set and the reason as its text, never an exception that ends the session::

    ToolError
    ├── GatewayUnavailableError   the stack is not running, not reachable, or too slow to answer
    ├── InvalidArgumentError      the arguments break the tool's schema or the gateway refused them
    ├── NotFoundError             the memory, symbol or file named does not exist
    └── PermissionDeniedError     the token was refused
"""

from __future__ import annotations

import grpc


class ToolError(Exception):
    """A tool call failed for a reason the agent should read."""

    kind = "error"

    def __str__(self) -> str:
        return f"{self.kind}: {super().__str__()}"


class GatewayUnavailableError(ToolError):
    kind = "gateway unavailable"


class InvalidArgumentError(ToolError):
    kind = "invalid argument"


class NotFoundError(ToolError):
    kind = "not found"


class PermissionDeniedError(ToolError):
    kind = "permission denied"


_BY_CODE: dict[grpc.StatusCode, type[ToolError]] = {
    grpc.StatusCode.UNAVAILABLE: GatewayUnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: GatewayUnavailableError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.UNAUTHENTICATED: PermissionDeniedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
}


def from_rpc(code: grpc.StatusCode, details: str, address: str) -> ToolError:
    """The tool error for a failed gRPC call to the gateway at ``address``."""
    error = _BY_CODE.get(code, ToolError)
    if error is GatewayUnavailableError:
        hint = "is `codememory up` running?" if code is grpc.StatusCode.UNAVAILABLE else "try again"
        return error(f"the gateway at {address} did not answer ({code.name}: {details}); {hint}")
    return error(details or code.name)


__all__ = [
    "GatewayUnavailableError",
    "InvalidArgumentError",
    "NotFoundError",
    "PermissionDeniedError",
    "ToolError",
    "from_rpc",
]
