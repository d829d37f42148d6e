"""The work tree's own diff through git, for ``review_diff`` without a diff (reading diffs is
``codememory.review``'s: tests/unit/review)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codememory.mcp.diffs import working_diff
from codememory.mcp.errors import InvalidArgumentError
from codememory.review import parse_diff


async def test_working_diff_of_a_git_tree(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    git("add", "a.py")
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "first")
    (tmp_path / "a.py").write_text("one\nTWO\nthree\n")

    files = parse_diff(await working_diff(tmp_path, "HEAD"))

    assert [(f.path, f.ranges) for f in files] == [("a.py", [(2, 2)])]
    with pytest.raises(InvalidArgumentError, match="git diff nope failed"):
        await working_diff(tmp_path, "nope")
    with pytest.raises(InvalidArgumentError, match="commit or ref"):
        await working_diff(tmp_path, "--output=/tmp/x")
