"""What the review's parts agree on about commits and paths: fixes, large commits, test files.

Why a module of its own: risk, missing and history judge commits and paths the same way. The graph
itself is read through ``codegraph.queries.read`` (``engine.review`` runs the whole review as one
read), so every part asks a ``GraphReader`` (a file's symbols, a node's commits, a commit's files) and
none reaches into the graph's lock or dicts.
"""

from __future__ import annotations

import re

__all__ = ["FIX", "MAX_COMMIT_FILES", "is_test_path"]

MAX_COMMIT_FILES = 30  # like the graph's co-change: a larger commit says little about what belongs together
FIX = re.compile(r"\b(fix(e[sd])?|bug|bugfix|regression|revert(s|ed)?|hotfix|broken|crash(es)?)\b", re.I)
_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/")
_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|[^/]*Tests?\.(java|kt|cs|swift)|conftest\.py)$"
)


def is_test_path(path: str) -> bool:
    return bool(_TEST_DIR.search(path) or _TEST_FILE.search(path))
