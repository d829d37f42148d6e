"""``codememory mcp`` end to end: the MCP SDK's own client against a real ``codememory up`` stack.

Over stdio (the server spawned as an agent spawns it) and over streamable HTTP: the tools are listed,
a memory is remembered and recalled, code tools answer after ``codememory index`` of a small repository,
a diff of the work tree is reviewed, and bad input or an unreachable gateway come back as tool errors
while the server keeps serving. ``install-mcp`` merges into existing files, and the command it writes
starts the server from an environment whose PATH has never seen the virtualenv.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import time
import tomllib
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from coderepo import PAY_V2, REPO, make_repo  # type: ignore[import-not-found]
from conftest_paths import BIN  # type: ignore[import-not-found]
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

Stack = Any  # tests/e2e/conftest.py's Stack (conftest modules are not imported by name)

TOOLS = {
    "recall", "remember", "refine", "forget", "session_context", "supersede", "merge", "unmerge",
    "memory_history", "search_code", "symbol_info",
    "dependents", "review_diff", "what_changed", "symbol_history", "cochanged",
}  # fmt: skip


@pytest.fixture(scope="module")
def shop(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp") / "shop"
    make_repo(root)
    assert stack.cli_json("index", str(root), "--history")["repo"] == REPO
    return root


def _stdio(stack: Stack, project: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(BIN / "codememory"), args=["mcp", "--project", str(project)], env={**stack.env, **env}
    )


def _text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def _ok(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, _text(result)
    return _text(result)


async def _eventually(check: Callable[[], Awaitable[str | None]], timeout: float = 60) -> str:
    """Poll ``check`` until it returns text (the embed service works in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found is not None:
            return found
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.5)


async def _memory_round_trip(client: Client) -> None:
    fact = f"Refunds go through the ledger service, never straight to the card processor ({uuid.uuid4().hex})"
    stored = await _ok(client, "remember", {"text": fact, "type": "decision", "paths": ["shop/pay.py"]})
    memory_id = stored.split()[1]

    async def recalled() -> str | None:
        text = await _ok(client, "recall", {"query": "how are refunds paid back to the card", "limit": 5})
        return text if memory_id in text else None

    assert "decision" in await _eventually(recalled)
    await _ok(client, "refine", {"memory_id": memory_id, "importance": 0.9})
    again = await _ok(
        client, "remember", {"text": f"refunds: ledger service, not the card processor {fact[-33:]}"}
    )
    older = await _ok(client, "remember", {"text": f"refunds go straight to the card processor {fact[-33:]}"})
    again_id, older_id = again.split()[1], older.split()[1]
    merged = await _ok(
        client, "merge", {"canonical_id": memory_id, "memory_ids": [again_id], "reason": "same"}
    )
    assert f"Merged 1 into {memory_id}" in merged
    assert "superseded by" in await _ok(client, "supersede", {"old_id": older_id, "new_id": memory_id})
    refused = await client.call_tool("merge", {"canonical_id": older_id, "memory_ids": [again_id]})
    assert refused.is_error and "superseded by" in _text(refused)  # into history: refused, said why
    history = await _ok(client, "memory_history", {"memory_id": older_id})
    assert f"by {memory_id}" in history.splitlines()[0] and "memory.superseded" in history
    await _ok(client, "unmerge", {"canonical_id": memory_id, "memory_ids": [again_id], "reason": "apart"})
    assert "memories.unmerged" in await _ok(client, "memory_history", {"memory_id": memory_id})


async def test_stdio_tools_memory_code_and_review(stack: Stack, shop: Path) -> None:
    (shop / "shop/pay.py").write_text(PAY_V2.replace("raise ValueError", "raise TypeError"))  # uncommitted
    async with Client(_stdio(stack, shop), read_timeout_seconds=60) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
        await _memory_round_trip(client)

        async def searched() -> str | None:
            text = await _ok(client, "search_code", {"query": "charge a card for a payment", "limit": 3})
            return text if "shop.pay.Gateway.charge" in text.splitlines()[1] else None

        assert "shop/pay.py" in await _eventually(searched)
        info = await _ok(client, "symbol_info", {"symbol": "shop.pay.validate"})
        assert "callers" in info and "shop.pay.settle" in info
        assert "shop.api.checkout" in await _ok(
            client, "dependents", {"node": "shop.pay.validate", "transitive": True}
        )
        assert "round charged amounts" in await _ok(
            client, "symbol_history", {"symbol": "shop.pay.Gateway.charge"}
        )
        assert "3 commits" in await _ok(
            client, "what_changed", {"since": "2026-01-01", "until": "2026-04-01"}
        )
        assert "web/render.ts" in await _ok(client, "cochanged", {"path": "web/client.ts"})

        async def reviewed() -> str | None:  # the work tree against HEAD
            text = await _ok(client, "review_diff", {})
            return text if "Refunds go through the ledger service" in text else None  # linked by path

        review = await _eventually(reviewed)  # once the memory's vector is back after refine
        assert f"against the code graph of {REPO}" in review
        assert "- function shop.pay.validate" in review and "dependents outside the diff" in review

        bad = await client.call_tool("recall", {"limit": "many"})
        assert bad.is_error and "'query' is a required property" in _text(bad)
        unknown = await client.call_tool("symbol_info", {"symbol": "shop.nowhere"})
        assert unknown.is_error and _text(unknown).startswith("not found")
        assert await _ok(client, "session_context", {"prompt": "refunds"})  # still serving


async def test_stdio_gateway_unreachable_is_a_tool_error(stack: Stack, tmp_path: Path) -> None:
    empty_home = tmp_path / "home"
    async with Client(_stdio(stack, tmp_path, CODEMEMORY_HOME=str(empty_home))) as client:
        down = await client.call_tool("recall", {"query": "anything"})
        assert down.is_error and "not running" in _text(down) and "codememory up" in _text(down)
    async with Client(_stdio(stack, tmp_path, CODEMEMORY_GRPC_ADDRESS="127.0.0.1:9")) as client:
        down = await client.call_tool("search_code", {"query": "anything"})
        assert down.is_error and "gateway unavailable" in _text(down) and "127.0.0.1:9" in _text(down)
        assert len((await client.list_tools()).tools) == len(TOOLS)  # the server lives on


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_streamable_http(stack: Stack, shop: Path) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [str(BIN / "codememory"), "mcp", "--http", "--port", str(port), "--project", str(shop)],
        env=stack.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            assert time.monotonic() < deadline, "codememory mcp --http did not listen"
            await asyncio.sleep(0.2)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            await _memory_round_trip(client)
            assert "shop.pay.settle" in await _ok(client, "symbol_info", {"symbol": "shop.pay.validate"})
            bad = await client.call_tool("forget", {"memory_id": ""})
            assert bad.is_error and "memory_id" in _text(bad)
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stderr:
            server.stderr.close()


async def test_install_mcp_merges_and_its_command_runs_without_the_venv_on_path(
    stack: Stack, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "k": 1}))
    (project / ".codex/config.toml").write_text('# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "d"\n')

    for agent in ("claude", "cursor", "codex", "gemini"):
        assert (
            "updated" in stack.cli("install-mcp", "--agent", agent, "--project", str(project)).stdout.decode()
        )
        again = stack.cli("install-mcp", "--agent", agent, "--project", str(project)).stdout.decode()
        assert "already up to date" in again

    claude = json.loads((project / ".mcp.json").read_text())
    assert claude["k"] == 1 and claude["mcpServers"]["other"] == {"command": "x"}
    codex_text = (project / ".codex/config.toml").read_text()
    codex = tomllib.loads(codex_text)
    assert codex_text.startswith("# mine") and codex["mcp_servers"]["docs"] == {"command": "d"}
    assert codex["mcp_servers"]["codememory"] == claude["mcpServers"]["codememory"]
    for name in (".cursor/mcp.json", ".gemini/settings.json"):
        assert (
            json.loads((project / name).read_text())["mcpServers"]["codememory"]
            == codex["mcp_servers"]["codememory"]
        )

    entry = claude["mcpServers"]["codememory"]
    assert Path(entry["command"]).is_absolute()
    bare_env = {k: v for k, v in stack.env.items() if k != "VIRTUAL_ENV"} | {"PATH": "/usr/bin:/bin"}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=bare_env)
    async with Client(params) as client:
        assert len((await client.list_tools()).tools) == len(TOOLS)
        assert not (await client.call_tool("recall", {"query": "refunds"})).is_error
