"""The typed errors of code search, so a caller can tell bad input from a broken index.

``CodeSearchError`` is the root; ``InvalidCodeInputError`` covers everything the caller got wrong (an
empty tenant, a vector of the wrong size, an unknown qualname, a bad fusion setting); failures of the
index underneath surface as ``CodeIndexError`` with the vector store's error as the cause.
"""

from __future__ import annotations

__all__ = ["CodeIndexError", "CodeSearchError", "InvalidCodeInputError"]


class CodeSearchError(Exception):
    """Root of the code-search errors."""


class InvalidCodeInputError(CodeSearchError, ValueError):
    """The request or configuration is malformed; nothing was written or searched."""


class CodeIndexError(CodeSearchError):
    """The vector index under the code index failed."""
