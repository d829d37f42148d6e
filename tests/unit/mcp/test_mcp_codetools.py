"""The code tools and review_diff against a real gateway that recorded a small repository."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from codestack import facts_message, shop_facts  # type: ignore[import-not-found]
from livegateway import META, Running  # type: ignore[import-not-found]
from mcp import Client

from codememory.mcp.gateway import Gateway
from codememory.mcp.server import build_server
from codememory.mcp.settings import McpSettings
from codememory.v1 import code_pb2_grpc

REVIEW = """--- a/shop/pay.py
+++ b/shop/pay.py
@@ -2 +2 @@ def validate(amount):
-    return amount > 0
+    return amount >= 0
@@ -7 +7 @@ class Gateway:
-        validate(amount)
+        validate(abs(amount))
--- /dev/null
+++ b/shop/new.py
@@ -0,0 +1 @@
+x = 1
"""


@pytest.fixture
async def recorded(pointed: Running, settings: McpSettings) -> McpSettings:
    stub = code_pb2_grpc.CodeServiceStub(pointed.channel)
    await stub.RecordCode(facts_message(*shop_facts()), metadata=META)
    return settings


@asynccontextmanager
async def connected(settings: McpSettings) -> AsyncIterator[Client]:
    """The SDK's client on the server in process (entered and left in the test's own task: anyio)."""
    gateway = Gateway(settings)
    async with Client(build_server(settings, gateway)) as client:
        yield client
    await gateway.close()


async def _call(client: Client, name: str, arguments: dict[str, object]) -> str:
    result = await client.call_tool(name, arguments)
    text = "\n".join(block.text for block in result.content)  # type: ignore[union-attr]
    assert not result.is_error, text
    return text


async def test_symbol_info_and_dependents(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        info = await _call(client, "symbol_info", {"symbol": "shop.pay.validate"})
        assert info.startswith("function shop.pay.validate  shop/pay.py:1-2")
        assert "callers (2):" in info and "shop.pay.settle" in info and "shop.pay.Gateway.charge" in info

        deps = await _call(client, "dependents", {"node": "shop.pay.validate", "transitive": True})
        assert "transitive dependents of shop.pay.validate" in deps and "shop.api.checkout" in deps


async def test_history_tools(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        changed = await _call(client, "what_changed", {"since": "2020-01-01", "until": "2021-01-01"})
        assert "1 commits, 2 files" in changed and "aaaaaaaaaaaa" in changed
        assert "No recorded commits" in await _call(client, "what_changed", {"days": 1})
        history = await _call(client, "symbol_history", {"symbol": "shop.pay.settle"})
        assert history.startswith("function shop.pay.settle")
        assert "shop" in await _call(client, "cochanged", {"path": "shop/pay.py"})
        assert "No symbols match" in await _call(client, "search_code", {"query": "zzz qqq", "repo": "*"})


async def test_unknown_symbol_and_bad_time_are_tool_errors(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        missing = await client.call_tool("symbol_info", {"symbol": "shop.nothing"})
        assert missing.is_error and missing.content[0].text.startswith("not found")  # type: ignore[union-attr]
        bad = await client.call_tool("what_changed", {"since": "last tuesday"})
        assert bad.is_error and "ISO-8601" in bad.content[0].text  # type: ignore[union-attr]


async def test_review_diff_finds_the_innermost_symbols_and_their_callers(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        review = await _call(client, "review_diff", {"diff": REVIEW})
        lines = review.splitlines()
        assert lines[0] == "Review of 2 file(s) against the code graph of shop:"
        assert "shop/new.py (added, not in the graph)" in review
        assert "changed symbols (2):" in review
        assert any(line.startswith("- function shop.pay.validate") for line in lines)
        assert any(line.startswith("- method shop.pay.Gateway.charge") for line in lines)
        assert "class shop.pay.Gateway " not in review  # the enclosing class is not listed
        outside = next(line for line in lines if "dependents outside the diff" in line)
        assert "shop.pay.settle (calls)" in outside and "Gateway.charge" not in outside


async def test_review_of_an_empty_diff(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        empty = await _call(client, "review_diff", {"diff": "nothing here"})
        assert empty == "The diff is empty: nothing to review."


async def test_budget_cuts_a_long_answer(recorded: McpSettings) -> None:
    async with connected(recorded) as client:
        text = await _call(client, "symbol_info", {"symbol": "shop.pay.validate", "budget_tokens": 100})
        assert len(text) < 100 * 4 + 200
