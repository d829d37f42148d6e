"""Walking a repository: git's own listing in a work tree, the gitignore matcher elsewhere, alike."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codememory.code import IndexingError, NotARepositoryError
from codememory.code.walk import RepoFile, is_git_work_tree, repo_name, walk_repository

FILES = {
    ".gitignore": "*.log\nbuild/\n/top.txt\n!keep.log\nnode_modules\n",
    "app.py": "x = 1\n",
    "debug.log": "noise\n",
    "keep.log": "kept\n",
    "top.txt": "ignored at the top\n",
    "build/out.py": "generated\n",
    "pkg/__init__.py": "",
    "pkg/top.txt": "not anchored here\n",
    "pkg/.gitignore": "*.tmp\n!special.tmp\n",
    "pkg/a.tmp": "x\n",
    "pkg/special.tmp": "x\n",
    "pkg/sub/mod.py": "def f(): pass\n",
    "web/node_modules/lib/index.js": "x\n",
    "web/src/app.ts": "export const a = 1;\n",
}
EXPECTED = {
    ".gitignore",
    "app.py",
    "keep.log",
    "pkg/__init__.py",
    "pkg/top.txt",
    "pkg/.gitignore",
    "pkg/special.tmp",
    "pkg/sub/mod.py",
    "web/src/app.ts",
}


def _write(root: Path) -> None:
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _git(root: Path, *args: str) -> None:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


def test_plain_directory_honours_nested_gitignores(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    _write(root)
    (root / ".git").mkdir()  # a stray .git directory is never listed
    (root / ".git" / "config").write_text("x")
    assert not is_git_work_tree(root)
    found = list(walk_repository(root))
    assert {f.path for f in found} == EXPECTED
    app = next(f for f in found if f.path == "app.py")
    assert app == RepoFile("app.py", root.resolve() / "app.py", 6)


def test_git_work_tree_lists_tracked_and_untracked_not_ignored(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root)
    _git(root, "init", "-q")
    _git(root, "add", "app.py", "pkg/__init__.py")
    _git(root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "init")
    (root / "app.py").unlink()  # tracked but deleted from the work tree: not listed
    assert is_git_work_tree(root)
    assert {f.path for f in walk_repository(root)} == EXPECTED - {"app.py"}


def test_the_two_walkers_agree(tmp_path: Path) -> None:
    plain, repo = tmp_path / "plain", tmp_path / "repo"
    _write(plain)
    _write(repo)
    _git(repo, "init", "-q")
    assert {f.path for f in walk_repository(plain)} == {f.path for f in walk_repository(repo)}


def test_not_a_directory_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError) as caught:
        list(walk_repository(tmp_path / "missing"))
    assert isinstance(caught.value, IndexingError)


def test_repo_name_is_the_repository_identity(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    assert repo_name(root) == str(root.resolve())
    _git(root, "init", "-q")
    assert repo_name(root) == str(root.resolve())
    _git(root, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    assert repo_name(root) == "github.com/acme/widgets"
    _git(root, "remote", "set-url", "origin", "https://github.com/acme/gadgets")
    assert repo_name(root) == "github.com/acme/gadgets"
