"""The tool registry: each tool's name, description, JSON input schema and handler, and the one call path.

Tools are data (a ``Tool`` each, defined beside the RPCs they use in ``memorytools``, ``codetools`` and
``review``) so the server wiring, the tests and the docs all read one list. ``Registry.call`` is the
only way a tool runs: it checks the arguments against the schema, gives the handler a ``Page`` sized
by the call's ``budget_tokens`` (every tool takes it), and turns every failure into a tool result
with ``is_error`` and the reason: a ``ToolError`` says what went wrong, anything else is reported as
an internal error and logged, and the server keeps serving.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from mcp import types

from codememory.mcp.errors import InvalidArgumentError, ToolError
from codememory.mcp.formatting import Page
from codememory.mcp.gateway import Gateway
from codememory.mcp.settings import McpSettings

log = logging.getLogger("codememory.mcp")

BUDGET = {
    "type": "integer",
    "minimum": 100,
    "maximum": 20000,
    "description": "Most tokens the answer may take (about 4 characters each); default from the server.",
}


@dataclass(frozen=True)
class ToolContext:
    """What a handler may use: the gateway, the served project, and the page to write its answer on."""

    gateway: Gateway
    settings: McpSettings
    page: Page

    def repo(self, args: Mapping[str, Any]) -> str:
        """The ``repo`` argument, or the served project's repository."""
        return str(args.get("repo") or self.settings.repo)


Handler = Callable[[ToolContext, Mapping[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: Mapping[str, Any]
    handler: Handler
    required: tuple[str, ...] = ()
    read_only: bool = True
    destructive: bool = False
    schema: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        schema = {
            "type": "object",
            "properties": {**self.properties, "budget_tokens": BUDGET},
            "required": list(self.required),
            "additionalProperties": False,
        }
        jsonschema.Draft202012Validator.check_schema(schema)
        object.__setattr__(self, "schema", schema)

    def listed(self) -> types.Tool:
        hints = types.ToolAnnotations(
            read_only_hint=self.read_only, destructive_hint=self.destructive, open_world_hint=False
        )
        return types.Tool(
            name=self.name, description=self.description, input_schema=self.schema, annotations=hints
        )


def text(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def integer(description: str, default: int, minimum: int, maximum: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "description": description,
        "default": default,
        "minimum": minimum,
        "maximum": maximum,
    }


def strings(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description, **extra}


class Registry:
    """Tools by name, and running one."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self._validators = {name: jsonschema.Draft202012Validator(t.schema) for name, t in self.tools.items()}

    def listed(self) -> list[types.Tool]:
        return [tool.listed() for tool in self.tools.values()]

    def schema(self, name: str) -> dict[str, Any] | None:
        tool = self.tools.get(name)
        return None if tool is None else tool.schema

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, gateway: Gateway, settings: McpSettings
    ) -> types.CallToolResult:
        args = dict(arguments or {})
        try:
            tool = self.tools.get(name)
            if tool is None:
                raise InvalidArgumentError(f"no tool named {name!r}; tools: {', '.join(self.tools)}")
            self._check(name, args)
            page = Page(int(args.get("budget_tokens") or settings.budget_tokens))
            await tool.handler(ToolContext(gateway, settings, page), args)
        except ToolError as exc:
            return _error(str(exc))
        except Exception as exc:  # a bug of ours must not end the agent's session
            log.exception("tool %s failed", name)
            return _error(f"internal error in {name}: {type(exc).__name__}: {exc}")
        return types.CallToolResult(content=[types.TextContent(text=page.render() or "(nothing)")])

    def _check(self, name: str, args: dict[str, Any]) -> None:
        problems = sorted(self._validators[name].iter_errors(args), key=lambda e: [str(p) for p in e.path])
        if problems:
            reasons = "; ".join(
                f"{'.'.join(str(p) for p in e.path) or 'arguments'}: {e.message}" for e in problems
            )
            raise InvalidArgumentError(f"{name}: {reasons}")


def _error(reason: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=reason)], is_error=True)


__all__ = ["Registry", "Tool", "ToolContext", "integer", "strings", "text"]
