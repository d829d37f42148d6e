"""Typed errors for code indexing.

Why it exists: the CLI and the graph service must tell "this path is not a repository" apart from
"a grammar is missing" and from "reading the tree failed", and print each clearly. Tree::

    IndexingError
    ├── NotARepositoryError    (the root is not a directory)
    ├── UnsupportedLanguageError (a grammar was asked for that this package does not know)
    └── WalkError              (git ls-files or reading the tree failed)

Bad *file content* is never an error: it degrades to an unparsed file node. (Failures of the
code-search index are another tree: ``codememory.codesearch.CodeIndexError``.)
"""

from __future__ import annotations

from pathlib import Path


class IndexingError(Exception):
    """Base of every error raised by ``codememory.code``."""


class NotARepositoryError(IndexingError, ValueError):
    """The root to index does not exist or is not a directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"not a directory to index: {path}")


class UnsupportedLanguageError(IndexingError, ValueError):
    """A language name this package has no extractor for."""

    def __init__(self, language: str) -> None:
        self.language = language
        super().__init__(f"unsupported language: {language!r}")


class WalkError(IndexingError):
    """Listing the repository's files failed (``git ls-files`` exited non-zero, unreadable tree)."""
