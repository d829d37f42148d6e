"""``git_diff``: the work tree, the index, a range; a bad ref or an option-like ref is a typed error."""

from __future__ import annotations

from pathlib import Path

import pytest
from reviewrepo import ShopRepo  # type: ignore[import-not-found]

from codememory.review import GitDiffError, git_diff, parse_diff


def test_work_tree_staged_and_range(tmp_path: Path) -> None:
    repo = ShopRepo(tmp_path / "r")
    repo.commit("one", {"a.py": "x = 1\n"})
    repo.commit("two", {"a.py": "x = 2\n", "b.py": "y = 1\n"})
    (repo.root / "a.py").write_text("x = 3\n")
    (repo.root / "b.py").write_text("y = 2\n")
    repo.git("add", "b.py")

    assert [f.path for f in parse_diff(git_diff(repo.root))] == ["a.py", "b.py"]
    assert [f.path for f in parse_diff(git_diff(repo.root, staged=True))] == ["b.py"]
    ranged = parse_diff(git_diff(repo.root, span="HEAD~1..HEAD"))
    assert [(f.path, f.status) for f in ranged] == [("a.py", "modified"), ("b.py", "added")]


def test_bad_refs_are_refused(tmp_path: Path) -> None:
    repo = ShopRepo(tmp_path / "r")
    repo.commit("one", {"a.py": "x = 1\n"})
    with pytest.raises(GitDiffError, match="failed"):
        git_diff(repo.root, base="nope")
    with pytest.raises(GitDiffError, match="commit or ref"):
        git_diff(repo.root, span="--output=/tmp/x..HEAD")
    with pytest.raises(GitDiffError, match="commit or ref"):
        git_diff(repo.root, span="HEAD")
    with pytest.raises(GitDiffError, match=r"cannot run|failed"):
        git_diff(tmp_path / "missing")
