"""install_mcp merges codememory's MCP server into each agent's own file, keeping everything else."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from codememory.agents import MCP_TARGETS, HookConfigError, UnknownAgentError, install_mcp
from codememory.agents.executable import executable

AGENTS = ("claude", "cursor", "codex", "gemini")
CODEX_CONFIG = """# my Codex settings
model = "o3"  # the one I like

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.codememory.env]
CODEMEMORY_HOME = "/srv/cm"  # keep me

[profiles.fast]
model = "mini"
"""


def _servers(agent: str, path: Path) -> dict[str, Any]:
    if MCP_TARGETS[agent].format == "toml":
        servers: dict[str, Any] = tomllib.loads(path.read_text())["mcp_servers"]
    else:
        servers = json.loads(path.read_text())["mcpServers"]
    return servers


@pytest.mark.parametrize("agent", AGENTS)
def test_fresh_project_gets_the_server_by_absolute_paths(agent: str, tmp_path: Path) -> None:
    result = install_mcp(agent, tmp_path)

    assert result.changed and result.path == tmp_path / MCP_TARGETS[agent].relative_path
    ours = _servers(agent, result.path)["codememory"]
    assert ours["command"] == executable() and Path(ours["command"]).is_absolute()
    assert ours["args"] == ["mcp", "--project", str(tmp_path.resolve())]
    assert not install_mcp(agent, tmp_path).changed  # a second run writes nothing


@pytest.mark.parametrize("agent", ["claude", "cursor", "gemini"])
def test_json_merge_keeps_other_servers_and_settings(agent: str, tmp_path: Path) -> None:
    path = tmp_path / MCP_TARGETS[agent].relative_path
    path.parent.mkdir(parents=True, exist_ok=True)
    before = {
        "theme": "dark",
        "mcpServers": {
            "github": {"command": "gh-mcp", "args": ["--ro"]},
            "codememory": {"command": "codememory", "args": ["mcp"], "env": {"A": "1"}},
        },
        "hooks": {"Stop": []},
    }
    path.write_text(json.dumps(before))

    result = install_mcp(agent, tmp_path)

    after = json.loads(path.read_text())
    assert after["theme"] == "dark" and after["hooks"] == {"Stop": []}
    assert list(after) == list(before)
    assert after["mcpServers"]["github"] == before["mcpServers"]["github"]
    assert after["mcpServers"]["codememory"] == {**result.entry, "env": {"A": "1"}}


def test_codex_toml_merge_keeps_comments_tables_and_our_env(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_CONFIG)

    result = install_mcp("codex", tmp_path)

    text = path.read_text()
    assert "# my Codex settings" in text and "# the one I like" in text and "# keep me" in text
    data = tomllib.loads(text)
    assert data["model"] == "o3" and data["profiles"] == {"fast": {"model": "mini"}}
    assert data["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-mcp"]}
    assert data["mcp_servers"]["codememory"] == {**result.entry, "env": {"CODEMEMORY_HOME": "/srv/cm"}}
    assert not install_mcp("codex", tmp_path).changed


def test_codex_new_table_before_another_table_stays_readable(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('[mcp_servers.docs]\ncommand = "npx"\n\n[profiles.fast]\nmodel = "mini"\n')

    install_mcp("codex", tmp_path)

    text = path.read_text()
    assert "\n\n[profiles.fast]" in text and text.endswith('model = "mini"\n')
    assert set(tomllib.loads(text)["mcp_servers"]) == {"docs", "codememory"}


@pytest.mark.parametrize(
    ("agent", "content", "reason"),
    [
        ("claude", '{"mcpServers": [', "not valid JSON"),
        ("cursor", '{"mcpServers": []}', "'mcpServers' must be an object"),
        ("gemini", '{"mcpServers": {"codememory": "x"}}', "must be an object"),
        ("codex", "model = ", "not valid TOML"),
        ("codex", 'mcp_servers = "no"', "'mcp_servers' must be a table"),
    ],
)
def test_broken_files_are_refused_and_left_untouched(
    agent: str, content: str, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / MCP_TARGETS[agent].relative_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)

    with pytest.raises(HookConfigError, match=reason):
        install_mcp(agent, tmp_path)
    assert path.read_text() == content


def test_custom_command_and_unknown_agent(tmp_path: Path) -> None:
    result = install_mcp("claude", tmp_path, command="/opt/cm/bin/codememory --quiet")
    assert result.entry["command"] == "/opt/cm/bin/codememory"
    assert result.entry["args"][:2] == ["--quiet", "mcp"]
    with pytest.raises(UnknownAgentError):
        install_mcp("windsurf", tmp_path)
    with pytest.raises(NotADirectoryError):
        install_mcp("claude", tmp_path / "missing")
