"""gRPC failures become the typed tool errors, each with a reason an agent can act on."""

from __future__ import annotations

import grpc
import pytest

from codememory.mcp.errors import (
    GatewayUnavailableError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ToolError,
    from_rpc,
)


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (grpc.StatusCode.UNAVAILABLE, GatewayUnavailableError),
        (grpc.StatusCode.DEADLINE_EXCEEDED, GatewayUnavailableError),
        (grpc.StatusCode.INVALID_ARGUMENT, InvalidArgumentError),
        (grpc.StatusCode.NOT_FOUND, NotFoundError),
        (grpc.StatusCode.UNAUTHENTICATED, PermissionDeniedError),
        (grpc.StatusCode.INTERNAL, ToolError),
    ],
)
def test_status_codes_map_to_tool_errors(code: grpc.StatusCode, kind: type[ToolError]) -> None:
    error = from_rpc(code, "why", "127.0.0.1:50051")
    assert type(error) is kind and "why" in str(error) and str(error).startswith(kind.kind)


def test_unavailable_says_where_and_what_to_do() -> None:
    text = str(from_rpc(grpc.StatusCode.UNAVAILABLE, "connection refused", "127.0.0.1:9"))
    assert "127.0.0.1:9" in text and "codememory up" in text
