"""The typer commands: install-mcp reports what it did; mcp refuses a project that does not exist."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from codememory.mcp.cli import register


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # two commands, so typer dispatches by name
    return app


def test_install_mcp_writes_then_finds_it_up_to_date(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(_app(), ["install-mcp", "--agent", "cursor", "--project", str(tmp_path)])
    second = runner.invoke(_app(), ["install-mcp", "--agent", "cursor", "--project", str(tmp_path)])

    assert first.exit_code == 0 and "updated" in first.output and "mcp --project" in first.output
    assert second.exit_code == 0 and "already up to date" in second.output
    assert "codememory" in json.loads((tmp_path / ".cursor/mcp.json").read_text())["mcpServers"]


def test_failures_are_one_line_and_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(_app(), ["install-mcp", "--agent", "vim", "--project", str(tmp_path)])
    assert unknown.exit_code == 2 and "unknown agent 'vim'" in unknown.output
    missing = runner.invoke(_app(), ["mcp", "--project", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "project directory does not exist" in missing.output
