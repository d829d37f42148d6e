"""Registry.call: the schema check, the page's budget, and every failure as a tool error."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from codememory.mcp.errors import NotFoundError
from codememory.mcp.gateway import Gateway
from codememory.mcp.registry import Registry, Tool, ToolContext, integer, text
from codememory.mcp.settings import McpSettings


async def _echo(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    for n in range(args.get("lines", 1)):
        ctx.page.add(f"{args['word']} {n} " + "." * 30)


async def _broken(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    raise KeyError("a bug")


async def _missing(ctx: ToolContext, args: Mapping[str, Any]) -> None:
    raise NotFoundError("no memory m-1")


TOOLS = Registry(
    [
        Tool("echo", "Echo a word.", {"word": text("w", minLength=1), "lines": integer("n", 1, 1, 500)},
             _echo, required=("word",)),
        Tool("broken", "Always fails.", {}, _broken),
        Tool("missing", "Not found.", {}, _missing),
    ]
)  # fmt: skip


@pytest.fixture
def settings(tmp_path: Path) -> McpSettings:
    return McpSettings(home=tmp_path, project=tmp_path, repo="r", branch="", budget_tokens=200)


async def test_an_answer_is_cut_at_the_default_budget_or_the_calls(settings: McpSettings) -> None:
    gateway = Gateway(settings)
    default = await TOOLS.call("echo", {"word": "hi", "lines": 400}, gateway, settings)
    wider = await TOOLS.call("echo", {"word": "hi", "lines": 400, "budget_tokens": 2000}, gateway, settings)
    short, long = default.content[0].text, wider.content[0].text  # type: ignore[union-attr]
    assert not default.is_error and "left out to stay within 200 tokens" in short and len(short) < 1000
    assert "left out to stay within 2000 tokens" in long and len(long) > 4 * len(short)


@pytest.mark.parametrize(
    ("name", "arguments", "reason"),
    [
        ("echo", {"word": ""}, "invalid argument: echo: word: '' should be non-empty"),
        ("echo", {"word": "x", "budget_tokens": 5}, "budget_tokens: 5 is less than the minimum of 100"),
        ("echo", None, "'word' is a required property"),
        ("broken", {}, "internal error in broken: KeyError"),
        ("missing", {}, "not found: no memory m-1"),
    ],
)
async def test_failures_are_tool_errors(
    settings: McpSettings, name: str, arguments: dict[str, Any] | None, reason: str
) -> None:
    result = await TOOLS.call(name, arguments, Gateway(settings), settings)
    assert result.is_error and reason in result.content[0].text  # type: ignore[union-attr]


def test_every_tool_takes_budget_tokens_and_refuses_unknown_arguments() -> None:
    schema = TOOLS.tools["echo"].schema
    assert schema["additionalProperties"] is False and "budget_tokens" in schema["properties"]
    assert schema["required"] == ["word"]
