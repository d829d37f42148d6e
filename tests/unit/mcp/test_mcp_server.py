"""The server wiring, through the SDK's own client in process, against a real gateway."""

from __future__ import annotations

from pathlib import Path

import pytest
from livegateway import Running  # type: ignore[import-not-found]
from mcp import Client

from codememory.mcp.gateway import Gateway
from codememory.mcp.server import build_server, registry
from codememory.mcp.settings import McpSettings
from codememory.runtime.home import Runtime, write_runtime

TOOLS = {
    "recall", "remember", "refine", "forget", "session_context", "supersede", "merge", "unmerge",
    "memory_history", "search_code", "symbol_info", "dependents", "review_diff", "what_changed",
    "symbol_history", "cochanged",
}  # fmt: skip


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return "\n".join(block.text for block in content)


async def test_lists_every_tool_with_a_schema_and_a_description(settings: McpSettings) -> None:
    async with Client(build_server(settings, Gateway(settings))) as client:
        listed = (await client.list_tools()).tools
    assert {tool.name for tool in listed} == TOOLS
    for tool in listed:
        assert tool.input_schema["type"] == "object" and "budget_tokens" in tool.input_schema["properties"]
        assert len(tool.description or "") > 80
    writes = {tool.name for tool in listed if tool.annotations and not tool.annotations.read_only_hint}
    assert writes == {"remember", "refine", "forget", "supersede", "merge", "unmerge"}


async def test_remember_recall_refine_forget(pointed: Running, settings: McpSettings) -> None:
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:
        stored = await client.call_tool(
            "remember", {"text": "We round charged amounts to cents in shop/pay.py", "type": "decision"}
        )
        assert not stored.is_error, _text(stored)
        memory_id = _text(stored).split()[1]

        found = await client.call_tool("recall", {"query": "round charged amounts to cents"})
        assert not found.is_error and memory_id in _text(found) and "decision" in _text(found)
        assert "shop" in _text(found)  # scoped to the served project's repository

        refined = await client.call_tool("refine", {"memory_id": memory_id, "text": "We round to cents."})
        assert not refined.is_error, _text(refined)
        context = await client.call_tool("session_context", {"prompt": "rounding"})
        assert not context.is_error, _text(context)

        gone = await client.call_tool("forget", {"memory_id": memory_id, "reason": "test"})
        assert not gone.is_error and memory_id in _text(gone)
        again = await client.call_tool("recall", {"query": "round charged amounts to cents"})
        assert memory_id not in _text(again)
    await gateway.close()


async def test_history_of_a_merge_taken_back_and_of_a_rule_replaced(
    pointed: Running, settings: McpSettings
) -> None:
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:

        async def ok(name: str, arguments: dict[str, object]) -> str:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, _text(result)
            return _text(result)

        async def remembered(text: str) -> str:
            return (await ok("remember", {"text": text, "type": "decision"})).split()[1]

        rule = await remembered("Lint the Python code with ruff")
        again = await remembered("We lint Python with ruff")
        other = await remembered("Format the Python code with black")
        await ok("merge", {"canonical_id": rule, "memory_ids": [again, other], "reason": "alike"})
        hidden = await ok("recall", {"query": "format python code black"})
        assert other not in hidden  # merged: out of recall
        shown = await ok("recall", {"query": "format python code black", "include_history": True})
        assert f"{other} [decision, " in shown and f"merged into {rule}" in shown

        await ok("unmerge", {"canonical_id": rule, "memory_ids": [other], "reason": "two rules"})
        history = await ok("memory_history", {"memory_id": rule})
        lines = history.splitlines()
        assert lines[0].startswith(f"- {rule} [decision, ") and "stated 2x" in lines[0]
        merged = next(n for n, line in enumerate(lines) if " memories.merged " in line)
        unmerged = next(n for n, line in enumerate(lines) if " memories.unmerged " in line)
        assert merged < unmerged and "reason=two rules" in lines[unmerged]
        assert any(line.startswith(f"- {again} [decision, ") and "merged into" in line for line in lines)
        assert f"- {other} " not in history.split("Memories it names")[1]  # taken back: named no more

        newer = await remembered("Lint the Python code with flake8 from now on")
        await ok("supersede", {"old_id": rule, "new_id": newer, "reason": "switched"})
        replaced = await ok("memory_history", {"memory_id": rule})
        assert f"superseded {replaced.split('superseded ')[1][:10]} by {newer}" in replaced.splitlines()[0]
        assert f"- {newer} [decision, " in replaced and "memory.superseded" in replaced
        missing = await client.call_tool("memory_history", {"memory_id": "no-such-memory"})
        assert missing.is_error
    await gateway.close()


@pytest.mark.parametrize(
    ("name", "arguments", "reason"),
    [
        ("recall", {}, "'query' is a required property"),
        ("recall", {"query": "x", "limit": 0}, "limit"),
        ("remember", {"text": "x", "colour": "red"}, "Additional properties"),
        ("refine", {"memory_id": "not-a-memory", "text": "y"}, ""),
        ("nope", {}, "no tool named 'nope'"),
    ],
)
async def test_bad_input_is_a_tool_error(
    pointed: Running, settings: McpSettings, name: str, arguments: dict[str, object], reason: str
) -> None:
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:
        result = await client.call_tool(name, arguments)
        assert result.is_error and reason in _text(result)
        assert not (await client.call_tool("recall", {"query": "still serving"})).is_error
    await gateway.close()


async def test_gateway_down_is_a_tool_error(tmp_path: Path, settings: McpSettings) -> None:
    async with Client(build_server(settings, Gateway(settings))) as client:  # no runtime.json in home
        result = await client.call_tool("recall", {"query": "anything"})
    assert result.is_error and "gateway unavailable" in _text(result) and "codememory up" in _text(result)


async def test_unreachable_address_and_refused_token(
    pointed: Running, settings: McpSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEMEMORY_TOKEN", "wrong")
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:
        refused = await client.call_tool("recall", {"query": "x"})
        assert refused.is_error and "permission denied" in _text(refused)
        monkeypatch.setenv("CODEMEMORY_GRPC_ADDRESS", "127.0.0.1:1")
        down = await client.call_tool("symbol_info", {"symbol": "x"})
        assert down.is_error and "gateway unavailable" in _text(down) and "127.0.0.1:1" in _text(down)
    await gateway.close()


def test_registry_schemas_are_what_the_server_validates_with() -> None:
    tools = registry()
    assert tools.schema("recall") == tools.tools["recall"].schema
    assert tools.schema("missing") is None


async def test_the_stack_is_found_through_the_home_per_call(live: Running, settings: McpSettings) -> None:
    """No environment: runtime.json and the token file, read per call (a restarted stack moves port)."""
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:
        before = await client.call_tool("recall", {"query": "x"})
        assert before.is_error and "not running" in _text(before)
        settings.home.mkdir()
        (settings.home / "token").write_text("tok")
        write_runtime(settings.home, Runtime(nats_url="nats://unused", grpc_address=live.address, pid=1))
        after = await client.call_tool("recall", {"query": "x"})
        assert not after.is_error, _text(after)
    await gateway.close()
