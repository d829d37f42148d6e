"""A repository's identity: its remote, else its main work tree's path; never its folder's name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codememory.hookclient.gitrepo import find_git, normalise_remote, repository_identity


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a"}
    env |= {"GIT_COMMITTER_EMAIL": "a@b", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def new_repo(root: Path, remote: str = "") -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "first")
    if remote:
        git(root, "remote", "add", "origin", remote)
    return root


@pytest.mark.parametrize(
    ("url", "identity"),
    [
        ("git@github.com:Acme/App.git", "github.com/Acme/App"),
        ("https://github.com/Acme/App", "github.com/Acme/App"),
        ("https://user:pw@GitHub.com:443/Acme/App.git/", "github.com/Acme/App"),
        ("ssh://git@gitlab.example.org:2222/team/sub/app.git", "gitlab.example.org/team/sub/app"),
    ],
)
def test_remote_urls_of_one_upstream_are_one_identity(url: str, identity: str) -> None:
    assert normalise_remote(url) == identity


def test_two_folders_named_alike_are_two_repositories(tmp_path: Path) -> None:
    one, two = new_repo(tmp_path / "a" / "repo"), new_repo(tmp_path / "b" / "repo")
    assert repository_identity(str(one)) == str(one.resolve())
    assert repository_identity(str(two)) != repository_identity(str(one))


def test_a_fork_beside_its_upstream_is_another_repository(tmp_path: Path) -> None:
    upstream = new_repo(tmp_path / "up" / "app", "git@github.com:acme/app.git")
    fork = new_repo(tmp_path / "fork" / "app", "git@github.com:me/app.git")
    assert repository_identity(str(upstream)) == "github.com/acme/app"
    assert repository_identity(str(fork)) == "github.com/me/app"


def test_clones_and_worktrees_are_the_same_repository(tmp_path: Path) -> None:
    original = new_repo(tmp_path / "original")
    git(tmp_path, "clone", "-q", str(original), "copy")
    git(original, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wip")
    identity = str(original.resolve())
    assert repository_identity(str(tmp_path / "copy")) == identity  # origin is a local path: followed
    name, root, branch = find_git(str(tmp_path / "wt"))
    assert (name, root, branch) == (identity, str(tmp_path / "wt"), "wip")


def test_clones_of_one_remote_agree(tmp_path: Path) -> None:
    one = new_repo(tmp_path / "x" / "app", "https://example.com/acme/app.git")
    two = new_repo(tmp_path / "y" / "checkout", "git@example.com:acme/app")
    assert repository_identity(str(one)) == repository_identity(str(two)) == "example.com/acme/app"


def test_find_git_walks_up_and_reads_the_branch(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "myrepo")
    git(repo, "checkout", "-q", "-b", "feature/x")
    (repo / "src" / "pkg").mkdir(parents=True)
    assert find_git(str(repo / "src" / "pkg")) == (str(repo.resolve()), str(repo), "feature/x")
    git(repo, "checkout", "-q", "--detach")
    assert find_git(str(repo))[2] == ""


def test_a_folder_outside_git(tmp_path: Path) -> None:
    if any((p / ".git").exists() for p in [tmp_path, *tmp_path.parents]):
        pytest.skip("tmp dir is inside a git repo")
    assert find_git(str(tmp_path)) == ("", "", "")
    assert find_git("/no/such/dir/anywhere") == ("", "", "")
    assert repository_identity(str(tmp_path)) == str(tmp_path.resolve())
