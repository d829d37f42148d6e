"""The gateway's FastStream wiring: the model loads at startup, a taken address is a clear error."""

from __future__ import annotations

import asyncio
import gc
import socket
from pathlib import Path

import pytest
from wordhash import WordHashEmbedder  # type: ignore[import-not-found]

from codememory.bus.app import service_broker
from codememory.gateway.errors import ListenError
from codememory.gateway.main import create_app, gateway_app, gateway_wiring
from codememory.gateway.settings import GatewaySettings
from codememory.runtime.natsd import NatsServer


def test_create_app_loads_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []
    monkeypatch.setenv("CODEMEMORY_GATEWAY_TOKENS", "tok=alpha")
    app = create_app(embedder=lambda: loaded.append("model") or WordHashEmbedder())  # type: ignore[func-returns-value]
    assert app is not None and loaded == []


async def test_a_taken_address_is_a_listen_error_and_another_port_then_works(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        settings = GatewaySettings(
            nats_url=nats_server.url, listen=address, data_dir=tmp_path, reuse_port=False, reflection=False
        )
        loads: list[int] = []

        def embedder() -> WordHashEmbedder:
            loads.append(1)
            return WordHashEmbedder()

        broker = service_broker(nats_server.url, "gateway")
        wiring = gateway_wiring(settings, broker, embedder)
        app = gateway_app(settings, broker, wiring)
        with pytest.raises(ListenError, match=address) as raised:
            await app.start()
        assert isinstance(raised.value, OSError) and wiring.app is None
        started = await wiring.start(listen="127.0.0.1:0")  # the shards were released: they open again
        assert wiring.app is started and started.port not in (0, taken.getsockname()[1])
        assert loads == [1]
        # serving: the startup heap frozen, and a loop walks the whole heap every GC_THAW_S
        assert started.collector.active and gc.get_freeze_count() > 0
        assert any(t.get_name() == "gateway-gc-thaw" for t in asyncio.all_tasks())
        await app.stop()
        assert wiring.app is None
        assert not started.collector.active and gc.get_freeze_count() == 0
    left = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("gateway-") and not t.done()]
    assert not left, f"the gateway's tasks outlived its stop: {left}"
