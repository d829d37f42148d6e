"""Which language a file is, by its extension.

Why it exists: the walker, the extractor and the summary must agree on one mapping, and everything
outside it degrades to a plain file node (``parsed=False``) instead of failing. Names are the
tree-sitter-language-pack grammar names, so the mapping is also what selects the parser.
"""

from __future__ import annotations

from pathlib import PurePosixPath

SUPPORTED: frozenset[str] = frozenset({"python", "typescript", "tsx", "javascript", "go", "rust", "java"})

_BY_SUFFIX: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}


def language_of(path: str) -> str:
    """The language of a repo-relative path, or ``""`` when it is not supported."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".ts" and path.endswith(".d.ts"):
        return "typescript"
    return _BY_SUFFIX.get(suffix, "")


def is_supported(path: str) -> bool:
    return language_of(path) != ""
