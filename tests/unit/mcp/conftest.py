"""A real gateway in this process (the gateway tests' ``running_gateway``: real nats-server, gRPC, Edge
shards, the word-hash embedder) and MCP settings pointing at it through the environment."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "gateway"))  # livegateway, codestack, wordhash

from livegateway import Running, running_gateway  # type: ignore[import-not-found]

from codememory.mcp.settings import McpSettings
from codememory.runtime.natsd import NatsServer


@pytest.fixture
async def live(nats_server: NatsServer, tmp_path: Path) -> AsyncIterator[Running]:
    async with running_gateway(nats_server.url, tmp_path / "gateway") as running:
        yield running


@pytest.fixture
def settings(tmp_path: Path) -> McpSettings:
    project = tmp_path / "project"
    project.mkdir()
    return McpSettings(home=tmp_path / "home", project=project, repo="shop", branch="main", budget_tokens=800)


@pytest.fixture
def pointed(live: Running, monkeypatch: pytest.MonkeyPatch) -> Running:
    """The MCP gateway client reaches ``live`` with its token, as ``codememory mcp`` would."""
    monkeypatch.setenv("CODEMEMORY_GRPC_ADDRESS", live.address)
    monkeypatch.setenv("CODEMEMORY_TOKEN", "tok")
    return live
