"""Who is calling: the tenant a bearer token names, and whether it is an admin token.

Tokens are compared in constant time (``hmac.compare_digest``) against every configured token, so
neither the content nor the position of a match leaks through timing; several tokens may name one
tenant (rotation). The servicers (memory, code, browse) resolve every call through here.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection, Mapping

import grpc

from codememory.gateway.errors import PermissionDenied, Unauthenticated

__all__ = ["is_admin", "require_admin", "tenant_of"]


def _bearer(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return ""


def _matches(presented: str, token: str) -> bool:
    """Constant time in the content of both (``hmac.compare_digest``): no timing oracle on a token."""
    return hmac.compare_digest(presented.encode(), token.encode())


def tenant_of(context: grpc.aio.ServicerContext, tokens: Mapping[str, str]) -> str:
    """The tenant of the caller's bearer token. Every configured token is compared, each in constant
    time; several tokens may name one tenant (rotation: add the new one, move clients, drop the old)."""
    presented = _bearer(context)
    tenant = ""
    for token, name in tokens.items():
        if _matches(presented, token) and presented:
            tenant = name
    if tenant:
        return tenant
    raise Unauthenticated("missing or unknown bearer token")


def is_admin(context: grpc.aio.ServicerContext, admin_tokens: Collection[str]) -> bool:
    presented = _bearer(context)
    allowed = False
    for token in admin_tokens:
        allowed |= _matches(presented, token) and bool(presented)
    return allowed


def require_admin(context: grpc.aio.ServicerContext, admin_tokens: Collection[str]) -> None:
    """Status and Replay show and rebuild every tenant's state: an admin token only."""
    if not is_admin(context, admin_tokens):
        raise PermissionDenied("an admin token is needed (CODEMEMORY_GATEWAY_ADMIN_TOKENS)")
