"""The embedded stack's bus security: its NATS users, their passwords, and the hook's credential.

``codememory up`` calls ``prepare_bus`` before it starts nats-server: every user of
``codememory.bus.permissions`` gets a password kept in ``<home>/secrets/bus.json`` (0600, created on
first use, kept across restarts), each hook tenant's credential goes to
``<home>/secrets/hook-<tenant>.json`` and the stack's own tenant's also to ``secrets/hook.json``,
which the hook reads. The server's configuration gets the authorization block; the services get
their own user's credentials; nothing else needs to be set by the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codememory import subjects
from codememory.bus.auth import BusCredentials, TlsFiles
from codememory.bus.permissions import authorization_block, bus_users, hook_user, user_names
from codememory.runtime.home import (
    admin_credentials,
    bus_passwords,
    read_runtime,
    runtime_file,
    write_hook_credentials,
)
from codememory.runtime.natsd import ServerTls


@dataclass(frozen=True)
class StackBus:
    authorization: str = field(repr=False)
    passwords: dict[str, str] = field(repr=False)
    server_tls: ServerTls | None = None
    client_tls: TlsFiles | None = None

    def credentials(self, user: str) -> BusCredentials:
        return BusCredentials(user=user, password=self.passwords[user], tls=self.client_tls)

    @property
    def ca(self) -> str:
        return self.client_tls.ca if self.client_tls is not None else ""


def prepare_bus(
    home: Path, tenant: str, hook_tenants: tuple[str, ...] = (), *, tls: ServerTls | None = None
) -> StackBus:
    """Passwords made or read, hook credentials written, the server's authorization block built."""
    tenants = tuple(dict.fromkeys((tenant, *hook_tenants)))
    passwords = bus_passwords(home, user_names(tenants))
    for name in tenants:
        user = hook_user(name)
        write_hook_credentials(home, subjects.token(name), user, passwords[user], default=name == tenant)
    block = authorization_block(bus_users(passwords, tenants))
    client_tls = TlsFiles(ca=tls.ca) if tls is not None else None
    return StackBus(block, passwords, tls, client_tls)


def operator_options(home: Path) -> dict[str, Any]:
    """``nats.connect`` options of the CLI's bus commands (``log``, ``dlq``): the user the environment
    names (a deployment's operator), else the admin of this home's stack; its CA when ``--tls``."""
    configured = BusCredentials.from_env("cli")
    if configured.user or configured.tls is not None:
        return configured.connect_options()
    admin = admin_credentials(home)
    ca = read_runtime(home).nats_ca if runtime_file(home).is_file() else ""
    tls = TlsFiles(ca=ca) if ca else None
    if admin is None:
        return BusCredentials(tls=tls).connect_options()
    return BusCredentials(user=admin[0], password=admin[1], tls=tls).connect_options()
