"""``codememory mcp``: the memory and the code graph as MCP tools, a thin client of the gateway's gRPC API.

``registry`` runs tools, ``memorytools``/``codetools``/``review`` define them over the RPCs,
``formatting`` writes their compact answers within a token budget, ``gateway`` reaches the stack with
the user's token, ``server`` wires the SDK (stdio, streamable HTTP), ``cli`` holds the typer commands.
"""
