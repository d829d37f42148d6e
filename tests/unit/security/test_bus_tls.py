"""The local CA of ``up --tls`` and the hook's stdlib client over TLS, against a real nats-server."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import nats
import pytest

from codememory.bus.auth import BusCredentials, TlsFiles
from codememory.bus.permissions import authorization_block, bus_users, user_names
from codememory.bus.streams import ensure_streams
from codememory.hookclient.protocol import NatsError
from codememory.hookclient.wire import NatsConnection
from codememory.runtime.certs import local_tls
from codememory.runtime.natsd import NatsServer


def test_the_local_ca_is_made_once_and_keeps_its_keys_private(tmp_path: Path) -> None:
    first = local_tls(tmp_path / "tls")
    ca = Path(first.ca).read_bytes()
    again = local_tls(tmp_path / "tls")
    assert Path(again.ca).read_bytes() == ca and again == first
    for key in ("ca-key.pem", "server-key.pem"):
        assert stat.S_IMODE((tmp_path / "tls" / key).stat().st_mode) == 0o600


def test_the_hook_client_speaks_tls_and_refuses_an_unknown_ca(tmp_path: Path) -> None:
    tls = local_tls(tmp_path / "tls")
    other = local_tls(tmp_path / "other")
    passwords = {name: f"pw-{name}" for name in user_names(["alpha"])}
    block = authorization_block(bus_users(passwords, ["alpha"]))
    with NatsServer(tmp_path / "nats", authorization=block, tls=tls) as server:
        assert server.url.startswith("tls://")
        admin = BusCredentials(user="admin", password=passwords["admin"], tls=TlsFiles(ca=tls.ca))

        async def prepare() -> None:
            nc = await nats.connect(server.url, **admin.connect_options())
            await ensure_streams(nc.jetstream())
            await nc.close()

        asyncio.run(prepare())
        user, password = "hook-alpha", passwords["hook-alpha"]
        with NatsConnection.connect(server.url, 5.0, user=user, password=password, ca=tls.ca) as conn:
            ack = conn.publish("cm.hooks.alpha.claude.Stop", b"{}", {"Nats-Msg-Id": "m1"}, 5.0)
            assert ack.stream == "HOOKS" and ack.seq == 1
        with pytest.raises(NatsError, match="TLS"):
            NatsConnection.connect(server.url, 5.0, user=user, password=password, ca=other.ca)
        plain = server.url.replace("tls://", "nats://")  # the server asks for TLS anyway (INFO)
        with pytest.raises(NatsError, match="TLS"):  # and without the local CA it is not trusted
            NatsConnection.connect(plain, 2.0, user=user, password=password)
