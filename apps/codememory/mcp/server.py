"""The MCP server wiring: the registry's tools on the SDK's low-level ``Server``, over stdio or HTTP.

The low-level server is used (not ``MCPServer``'s decorators) because the tools are data with
hand-written JSON schemas and descriptions; the registry validates and runs them. One ``Gateway`` is
shared by every session of the process. stdout belongs to the protocol on stdio, so nothing here
prints: logs go to stderr.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from codememory.mcp.codetools import TOOLS as CODE_TOOLS
from codememory.mcp.correctiontools import TOOLS as CORRECTION_TOOLS
from codememory.mcp.gateway import Gateway
from codememory.mcp.memorytools import TOOLS as MEMORY_TOOLS
from codememory.mcp.registry import Registry
from codememory.mcp.review import TOOLS as REVIEW_TOOLS
from codememory.mcp.settings import McpSettings

INSTRUCTIONS = (
    "codememory is your long-term memory of this project across sessions, and a code graph of it. "
    "recall before you change unfamiliar code; remember decisions, conventions and fixes worth keeping; "
    "refine or forget memories that are wrong; supersede an outdated rule, merge memories that say the "
    "same thing. search_code, symbol_info, dependents, symbol_history, "
    "what_changed and cochanged answer questions about the code; review_diff checks a change against "
    "the graph and memory. Every tool takes budget_tokens; ids in results can be passed back."
)


def registry() -> Registry:
    return Registry((*MEMORY_TOOLS, *CORRECTION_TOOLS, *CODE_TOOLS, *REVIEW_TOOLS))


def build_server(settings: McpSettings, gateway: Gateway) -> Server[Any]:
    """An MCP server answering ``tools/list`` and ``tools/call`` from the registry."""
    tools = registry()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.listed())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await tools.call(params.name, params.arguments, gateway, settings)

    return Server(
        "codememory",
        version=_version(),
        instructions=INSTRUCTIONS,
        get_tool_input_schema=tools.schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(settings: McpSettings) -> None:
    gateway = Gateway(settings)
    server = build_server(settings, gateway)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await gateway.close()


async def serve_http(settings: McpSettings) -> None:
    """Streamable HTTP at ``http://<host>:<port>/mcp`` (loopback by default, DNS rebinding guarded)."""
    import uvicorn

    gateway = Gateway(settings)
    app = build_server(settings, gateway).streamable_http_app(host=settings.host)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning")
    try:
        await uvicorn.Server(config).serve()
    finally:
        await gateway.close()


def configure_logging() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codememory")
    except PackageNotFoundError:
        return "0"


__all__ = ["INSTRUCTIONS", "build_server", "configure_logging", "registry", "serve_http", "serve_stdio"]
