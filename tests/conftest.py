"""Shared fixtures: a real nats-server with JetStream, the real model, and where shared/ data lives."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client
from nats.js.client import JetStreamContext

from codememory.bus import ensure_streams
from codememory.runtime.natsd import NatsServer
from codememory.sealing import MemoryKeyStore, Sealer
from collector_support import ordinary  # type: ignore[import-not-found]
from shared_data import HOOKS_DATA, SHARED  # type: ignore[import-not-found]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def pytest_configure(config: pytest.Config) -> None:
    """Without the shared data, dozens of tests would fail one by one; say why once instead."""
    if not HOOKS_DATA.is_dir():
        raise pytest.UsageError(
            f"shared data not found at {SHARED}: check the project out beside shared/, "
            "or set CODEMEMORY_SHARED to its path"
        )


@pytest.fixture(scope="session", autouse=True)
def _one_query_graph(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The stacks the tests start each have a home of their own; they share one cache of the exported
    ONNX query graph (a child process exports it, seconds each time): the run's temporary root, which
    the xdist workers share."""
    root = tmp_path_factory.getbasetemp()
    shared = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    os.environ.setdefault("CODEMEMORY_GATEWAY_MODEL_CACHE", str(shared / "query-models"))


@pytest.fixture(autouse=True)
def _sealing_in_process(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """A unit test that starts a program in-process (``service_app`` installs sealing) keeps its keys in
    a temporary directory, never ~/.codememory; the codec's sealer is left as the test found it."""
    from codememory.events.codec import install_sealer, installed_sealer

    if "unit" in request.node.path.parts:
        monkeypatch.setenv("CODEMEMORY_KEYSTORE_DIR", str(tmp_path_factory.getbasetemp() / "keys"))
    previous = installed_sealer()
    yield
    install_sealer(previous)


@pytest.fixture
def ordinary_collector() -> Iterator[None]:
    """CPython's default collector for the test, whatever the suite set before; restored after."""
    with ordinary():
        yield


@pytest.fixture
def sealer() -> Iterator[Sealer]:
    """A sealer over keys in memory, installed in the codec for one test."""
    from codememory.events.codec import install_sealer

    installed = Sealer(MemoryKeyStore())
    previous = install_sealer(installed)
    yield installed
    install_sealer(previous)


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    with NatsServer(tmp_path_factory.mktemp("nats")) as server:
        yield server


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    await ensure_streams(client.jetstream())
    yield client
    await client.close()


@pytest.fixture
async def js(tmp_path: Path) -> AsyncIterator[JetStreamContext]:
    """JetStream of a nats-server of this test's own, its streams made: LOG holds only what it appends."""
    with NatsServer(tmp_path / "nats") as server:
        client = await nats.connect(server.url)
        context = client.jetstream()
        await ensure_streams(context)
        yield context
        await client.close()


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    from codememory.embedding import load_default_embedder

    return load_default_embedder()
