"""The served project is named as the hooks and ``codememory index`` name it; limits come from the env."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codememory.hookclient.gitrepo import repository_identity
from codememory.mcp.settings import McpSettings
from codememory.settings import SettingsError


def test_a_subdirectory_of_a_work_tree_serves_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(tmp_path)], check=True)
    (tmp_path / "pkg").mkdir()
    monkeypatch.setenv("CODEMEMORY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEMEMORY_MCP_BUDGET_TOKENS", "500")

    settings = McpSettings.from_env(tmp_path / "pkg", port=9000)

    assert settings.project == tmp_path and settings.branch == "trunk"
    assert settings.repo == repository_identity(str(tmp_path))
    assert settings.home == tmp_path / "home" and settings.budget_tokens == 500
    assert (settings.host, settings.port) == ("127.0.0.1", 9000)


def test_a_plain_directory_and_bad_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = McpSettings.from_env(tmp_path)
    assert settings.project == tmp_path.resolve() and settings.repo == repository_identity(str(tmp_path))
    with pytest.raises(SettingsError, match="does not exist"):
        McpSettings.from_env(tmp_path / "missing")
    monkeypatch.setenv("CODEMEMORY_MCP_BUDGET_TOKENS", "10")
    with pytest.raises(SettingsError, match="at least 100"):
        McpSettings.from_env(tmp_path)
