"""The entry point: always exit 0, never print anything but context, log what went wrong."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codememory.hookclient import HookSettings, main


def spooled(settings: HookSettings) -> list[dict[str, Any]]:
    path = Path(settings.spool_path)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_main_without_agent_still_records_and_returns_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODEMEMORY_HOME", str(tmp_path))
    monkeypatch.delenv("CODEMEMORY_NATS_URL", raising=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"hook_event_name":"Stop"}')))
    assert main([]) == 0
    assert capsys.readouterr().out == ""
    [record] = spooled(HookSettings(home=str(tmp_path)))
    assert record["subject"] == "cm.hooks.local.unknown.Stop"
    assert "no --agent" in (tmp_path / "logs" / "hook.log").read_text()


def test_main_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "spool").write_text("a file where the spool dir should be")
    monkeypatch.setenv("CODEMEMORY_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    assert main(["hook", "--agent=claude"]) == 0
    assert capsys.readouterr().out == ""
    assert "event lost" in (tmp_path / "logs" / "hook.log").read_text()


def test_main_survives_a_broken_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODEMEMORY_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    monkeypatch.setitem(sys.modules, "codememory.hookclient.runner", None)  # import now fails
    assert main(["--agent", "claude"]) == 0
    assert capsys.readouterr().out == ""
    assert "hook failed: ModuleNotFoundError" in (tmp_path / "logs" / "hook.log").read_text()


def test_agent_argument_forms() -> None:
    from codememory.hookclient.main import _parse_agent

    assert _parse_agent(["--agent", "cursor"]) == "cursor"
    assert _parse_agent(["hook", "--agent=gemini"]) == "gemini"
    assert _parse_agent(["--agent"]) is None
    assert _parse_agent([]) is None


def test_main_and_exit_leaves_with_code_zero(tmp_path: Path, kit: Any) -> None:
    code = "import sys; from codememory.hookclient.main import main_and_exit; main_and_exit(sys.argv[1:])"
    proc = subprocess.run(
        [sys.executable, "-c", code, "--agent", "claude"],
        input=kit.sample("claude_Stop.json"),
        env=kit.env(tmp_path, None),
        capture_output=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert len(spooled(HookSettings(home=str(tmp_path)))) == 1
