"""The post-commit hook installer: merge into the user's hook, idempotent, background, removable."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from codememory.agents.errors import HookConfigError
from codememory.agents.githook import BEGIN, END, install_post_commit, post_commit_path, uninstall_post_commit
from codememory.githistory import NotAGitRepositoryError

USER_HOOK = '#!/bin/bash\nset -e\necho user-hook >> "$HOOK_LOG"\nexit 0\n'


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    base = {**os.environ, "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=root,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def root(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    return work


def _executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


def test_fresh_hook_runs_the_command_in_the_background(root: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = install_post_commit(root, f"sleep 3; touch {marker}; exit 1")
    assert path == root / ".git" / "hooks" / "post-commit"
    assert _executable(path)
    text = path.read_text()
    assert text.startswith("#!/bin/sh\n") and text.count(BEGIN) == 1 and END in text
    started = time.monotonic()
    _git(root, "commit", "-q", "--allow-empty", "-m", "one")
    assert time.monotonic() - started < 2.5  # the commit did not wait for the 3 s command
    assert not marker.exists()
    deadline = time.monotonic() + 15
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker.exists()


def test_existing_hook_is_kept_and_still_runs_ours_before_its_exit(root: Path, tmp_path: Path) -> None:
    path = post_commit_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(USER_HOOK)
    path.chmod(0o644)  # not executable: installing makes it so
    marker = tmp_path / "ours"
    install_post_commit(root, f"touch {marker}")
    text = path.read_text()
    assert text.startswith("#!/bin/bash\n" + BEGIN)
    assert text.endswith(USER_HOOK.split("\n", 1)[1])
    assert _executable(path)
    log = tmp_path / "hook.log"
    _git(root, "commit", "-q", "--allow-empty", "-m", "one", env={"HOOK_LOG": str(log)})
    assert log.read_text() == "user-hook\n"
    deadline = time.monotonic() + 15
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker.exists()


def test_install_is_idempotent_and_uninstall_restores_the_user_hook(root: Path) -> None:
    path = post_commit_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(USER_HOOK)
    install_post_commit(root)
    once = path.read_bytes()
    install_post_commit(root)
    install_post_commit(root, "codememory record-commit --other")
    assert path.read_bytes() == once
    uninstall_post_commit(root)
    assert path.read_text() == USER_HOOK
    uninstall_post_commit(root)
    assert path.read_text() == USER_HOOK


def test_uninstall_removes_a_hook_we_created(root: Path) -> None:
    path = install_post_commit(root)
    assert path.exists()
    assert uninstall_post_commit(root) == path
    assert not path.exists()
    assert uninstall_post_commit(root) == path  # nothing to do, no error


def test_core_hooks_path_is_respected(root: Path) -> None:
    _git(root, "config", "core.hooksPath", "githooks")
    path = install_post_commit(root)
    assert path == root / "githooks" / "post-commit"
    assert path.exists() and not (root / ".git" / "hooks" / "post-commit").exists()


def test_non_shell_hook_is_refused_and_untouched(root: Path) -> None:
    path = post_commit_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env python3\nprint('hi')\n")
    with pytest.raises(HookConfigError):
        install_post_commit(root)
    assert path.read_text() == "#!/usr/bin/env python3\nprint('hi')\n"


def test_bad_input_gets_typed_errors(tmp_path: Path, root: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotAGitRepositoryError):
        install_post_commit(plain)
    with pytest.raises(NotAGitRepositoryError):
        uninstall_post_commit(tmp_path / "missing")
    with pytest.raises(ValueError):
        install_post_commit(root, "one\ntwo")
    with pytest.raises(ValueError):
        install_post_commit(root, "  ")
