"""Text cut to a length for a person or an agent to read, the cut marked with an ellipsis.

One rule wherever a line is shortened (session context, MCP lines, lessons, review findings, DLQ
reasons, the log's pages, a symbol's doc): at most ``limit`` characters in all, the ellipsis
included (for any ``limit`` of 1 or more), trailing whitespace before it dropped, so a reader always
sees that something was left out and no line grows past what its budget allowed. Stdlib only, so
any package can use it.
"""

from __future__ import annotations

__all__ = ["ELLIPSIS", "clip"]

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """``text`` when it fits in ``limit`` characters; otherwise its first ``limit - 1`` (trailing
    whitespace dropped) and ``ELLIPSIS``. A ``limit`` below 1 leaves the ellipsis alone."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
