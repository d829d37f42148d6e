"""Gateway tokens: constant-time lookup with several per tenant, admin tokens apart, reflection off."""

from __future__ import annotations

from typing import Any

import pytest

from codememory.gateway.callers import require_admin, tenant_of
from codememory.gateway.errors import PermissionDenied, Unauthenticated
from codememory.gateway.settings import GatewaySettings


class Context:
    def __init__(self, token: str | None) -> None:
        self._metadata = () if token is None else (("authorization", f"Bearer {token}"),)

    def invocation_metadata(self) -> Any:
        return self._metadata


TOKENS = {"old-alpha": "alpha", "new-alpha": "alpha", "beta-1": "beta"}


def test_several_tokens_name_one_tenant_so_one_can_be_rotated_out() -> None:
    assert tenant_of(Context("old-alpha"), TOKENS) == tenant_of(Context("new-alpha"), TOKENS) == "alpha"  # type: ignore[arg-type]
    assert tenant_of(Context("beta-1"), TOKENS) == "beta"  # type: ignore[arg-type]
    for bad in (None, "", "new-alph", "new-alphaa", "NEW-ALPHA"):
        with pytest.raises(Unauthenticated):
            tenant_of(Context(bad), TOKENS)  # type: ignore[arg-type]


def test_only_admin_tokens_pass_the_admin_check() -> None:
    require_admin(Context("root"), frozenset({"root"}))  # type: ignore[arg-type]
    for token in ("new-alpha", "", None, "roo"):
        with pytest.raises(PermissionDenied):
            require_admin(Context(token), frozenset({"root"}))  # type: ignore[arg-type]
    with pytest.raises(PermissionDenied):
        require_admin(Context(""), frozenset({""}))  # type: ignore[arg-type]  # an empty token is no token


def test_reflection_is_off_and_admin_tokens_come_from_the_environment() -> None:
    settings = GatewaySettings.from_env({})
    assert settings.reflection is False and settings.admin_tokens == frozenset()
    configured = GatewaySettings.from_env(
        {"CODEMEMORY_GATEWAY_ADMIN_TOKENS": "a, b", "CODEMEMORY_GATEWAY_REFLECTION": "1"}
    )
    assert configured.admin_tokens == {"a", "b"} and configured.reflection is True
