"""The gateway's typed errors; the gRPC edge (rpc.py) maps each to one status code.

GatewayError
├── Unauthenticated   no or unknown token
├── PermissionDenied  a known token asks for what only an admin token may (Status, Replay)
├── InvalidArgument   the request cannot be served as asked
├── NotFound          no such memory for this tenant (another tenant's memory is "not found" too)
├── NotReady          the projection has not caught up within the deadline
└── ListenError       at start: the gRPC server could not bind its address (also an ``OSError``;
                      ``codememory up`` then tries a free port, a replica fails to start)
"""

from __future__ import annotations


class GatewayError(Exception):
    """Base of the gateway's errors."""


class Unauthenticated(GatewayError):
    pass


class PermissionDenied(GatewayError):
    pass


class InvalidArgument(GatewayError):
    pass


class NotFound(GatewayError):
    pass


class NotReady(GatewayError):
    pass


class ListenError(GatewayError, OSError):
    """The gRPC server could not bind ``listen``."""

    def __init__(self, listen: str) -> None:
        super().__init__(f"the gateway could not listen on {listen} (in use by another program?)")
        self.listen = listen
