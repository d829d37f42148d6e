"""Merge behaviour of install_hooks/uninstall_hooks, exercised identically for every agent."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from codememory.agents import (
    SPECS,
    HookConfigError,
    UnknownAgentError,
    config_path,
    install_hooks,
    supported_agents,
    uninstall_hooks,
)
from codememory.agents.executable import resolve_command

AGENTS = ("claude", "cursor", "codex", "gemini")
CODEMEMORY = resolve_command("codememory")  # the default: this installation's script by absolute path


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _commands(agent: str, data: dict[str, Any], event: str) -> list[str]:
    entries = data["hooks"][event]
    if SPECS[agent].layout == "flat":
        return [entry["command"] for entry in entries]
    return [handler["command"] for group in entries for handler in group["hooks"]]


def _foreign_entry(agent: str, command: str) -> dict[str, Any]:
    if SPECS[agent].layout == "flat":
        return {"command": command}
    return {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 7}]}


def _existing_config(agent: str) -> dict[str, Any]:
    """A realistic file: unrelated settings, a user hook on one of our events and on another."""
    first_event = SPECS[agent].events[0].event
    config: dict[str, Any] = {
        "env": {"FOO": "bar"},
        "permissions": {"allow": ["Bash(npm run test:*)"], "deny": []},
        "hooks": {
            first_event: [_foreign_entry(agent, "./scripts/mine.sh")],
            "SomeOtherEvent": [_foreign_entry(agent, "./scripts/other.sh")],
        },
        "model": "x-large",
    }
    if agent == "cursor":
        config = {"version": 1, **config}
    return config


def test_supported_agents_lists_all_four() -> None:
    assert supported_agents() == AGENTS


@pytest.mark.parametrize("agent", AGENTS)
def test_fresh_project_gets_every_event(agent: str, tmp_path: Path) -> None:
    result = install_hooks(agent, tmp_path)

    spec = SPECS[agent]
    assert result.path == tmp_path / spec.relative_path == config_path(agent, tmp_path)
    assert result.changed
    assert result.events_added == tuple(e.event for e in spec.events)
    assert result.events_present == ()
    text = result.path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "')  # 2-space indentation
    data = _read(result.path)
    for event in spec.events:
        assert _commands(agent, data, event.event) == [f"{CODEMEMORY} hook --agent {agent}"]
    assert CODEMEMORY.startswith("/") and CODEMEMORY.endswith("/codememory")


@pytest.mark.parametrize("agent", AGENTS)
def test_existing_settings_and_hooks_are_kept(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    before = _existing_config(agent)
    path.write_text(json.dumps(before), encoding="utf-8")

    result = install_hooks(agent, tmp_path)

    after = _read(path)
    ours = f"{CODEMEMORY} hook --agent {agent}"
    for key in ("env", "permissions", "model"):
        assert after[key] == before[key]
    assert list(after)[: len(before)] == list(before)  # key order kept
    assert after["hooks"]["SomeOtherEvent"] == before["hooks"]["SomeOtherEvent"]
    first_event = SPECS[agent].events[0].event
    assert _commands(agent, after, first_event) == ["./scripts/mine.sh", ours]
    assert after["hooks"][first_event][0] == before["hooks"][first_event][0]
    assert result.changed and first_event in result.events_added


@pytest.mark.parametrize("agent", AGENTS)
def test_second_install_changes_nothing(agent: str, tmp_path: Path) -> None:
    first = install_hooks(agent, tmp_path)
    content = first.path.read_bytes()
    mtime = first.path.stat().st_mtime_ns

    second = install_hooks(agent, tmp_path)

    assert not second.changed
    assert second.events_added == ()
    assert second.events_present == first.events_added
    assert first.path.read_bytes() == content
    assert first.path.stat().st_mtime_ns == mtime


@pytest.mark.parametrize("agent", AGENTS)
def test_existing_equivalent_entry_is_recognised(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    event = SPECS[agent].events[-1].event
    entry = _foreign_entry(agent, f"{CODEMEMORY}  hook --agent {agent}")  # extra space: same command
    path.write_text(json.dumps({"hooks": {event: [entry]}}), encoding="utf-8")

    result = install_hooks(agent, tmp_path)

    assert result.events_present == (event,)
    assert event not in result.events_added
    assert len(_read(path)["hooks"][event]) == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_bare_codememory_handler_is_rewritten_to_the_absolute_path(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    event = SPECS[agent].events[-1].event
    bare = _foreign_entry(agent, f"codememory hook --agent {agent}")  # as written before the fix
    path.write_text(json.dumps({"hooks": {event: [bare]}}), encoding="utf-8")

    result = install_hooks(agent, tmp_path)

    assert event in result.events_added
    assert _commands(agent, _read(path), event) == [f"{CODEMEMORY} hook --agent {agent}"]
    assert uninstall_hooks(agent, tmp_path).changed
    assert _read(path)["hooks"] == {}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"hooks": {', "not valid JSON"),
        ('{"hooks": {}, // comment\n}', "not valid JSON"),
        ("[1, 2]", "top level must be a JSON object"),
        ('{"hooks": []}', "'hooks' must be an object"),
        ('{"hooks": "on"}', "'hooks' must be an object"),
    ],
)
def test_broken_file_raises_and_is_left_untouched(
    agent: str, content: str, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    path.write_bytes(content.encode())

    with pytest.raises(HookConfigError, match=reason) as info:
        install_hooks(agent, tmp_path)
    with pytest.raises(HookConfigError, match=reason):
        uninstall_hooks(agent, tmp_path)

    assert info.value.path == path
    assert path.read_bytes() == content.encode()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp file left


@pytest.mark.parametrize("agent", AGENTS)
def test_event_of_wrong_type_raises(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    event = SPECS[agent].events[2].event
    content = json.dumps({"hooks": {event: {"command": "x"}}}).encode()
    path.write_bytes(content)

    with pytest.raises(HookConfigError, match=f"'hooks.{event}' must be an array"):
        install_hooks(agent, tmp_path)
    assert path.read_bytes() == content


@pytest.mark.parametrize("agent", AGENTS)
def test_empty_file_counts_as_empty_object(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    path.write_text("\n", encoding="utf-8")

    result = install_hooks(agent, tmp_path)

    assert result.changed
    assert set(_read(path)["hooks"]) == {e.event for e in SPECS[agent].events}


@pytest.mark.parametrize("agent", AGENTS)
def test_custom_command(agent: str, tmp_path: Path) -> None:
    result = install_hooks(agent, tmp_path, command="/opt/cm/bin/codememory")
    event = SPECS[agent].events[0].event
    assert _commands(agent, _read(result.path), event) == [f"/opt/cm/bin/codememory hook --agent {agent}"]


def test_unknown_agent_lists_supported(tmp_path: Path) -> None:
    with pytest.raises(UnknownAgentError, match="claude, cursor, codex, gemini") as info:
        install_hooks("windsurf", tmp_path)
    assert isinstance(info.value, ValueError)
    assert info.value.agent == "windsurf"
    with pytest.raises(UnknownAgentError):
        uninstall_hooks("windsurf", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_agent_name_is_case_insensitive(tmp_path: Path) -> None:
    result = install_hooks(" Claude ", tmp_path)
    assert result.agent == "claude"
    assert "--agent claude" in result.path.read_text(encoding="utf-8")


def test_missing_project_dir_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        install_hooks("claude", tmp_path / "nope")
    assert not (tmp_path / "nope").exists()


def test_file_mode_is_preserved(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o600)

    install_hooks("claude", tmp_path)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_symlinked_config_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"model": "m"}', encoding="utf-8")
    link = tmp_path / "proj" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)

    install_hooks("claude", tmp_path / "proj")

    assert link.is_symlink()
    assert _read(real)["model"] == "m" and "SessionStart" in _read(real)["hooks"]


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_removes_only_ours(agent: str, tmp_path: Path) -> None:
    path = tmp_path / SPECS[agent].relative_path
    path.parent.mkdir(parents=True)
    before = _existing_config(agent)
    path.write_text(json.dumps(before, indent=2) + "\n", encoding="utf-8")
    install_hooks(agent, tmp_path)

    result = uninstall_hooks(agent, tmp_path)

    assert result.changed
    assert result.events_removed == tuple(e.event for e in SPECS[agent].events)
    assert _read(path) == before
    again = uninstall_hooks(agent, tmp_path)
    assert not again.changed and again.events_removed == ()


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_without_file_is_a_no_op(agent: str, tmp_path: Path) -> None:
    result = uninstall_hooks(agent, tmp_path)
    assert not result.changed
    assert not result.path.exists()


def test_uninstall_keeps_other_handlers_in_a_shared_group(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = {"type": "command", "command": "./mine.sh"}
    ours = {"type": "command", "command": "codememory hook --agent claude"}
    config = {"hooks": {"Stop": [{"hooks": [mine, ours]}], "PreCompact": [{"hooks": []}]}}
    path.write_text(json.dumps(config), encoding="utf-8")

    result = uninstall_hooks("claude", tmp_path)

    assert result.events_removed == ("Stop",)
    assert _read(path) == {"hooks": {"Stop": [{"hooks": [mine]}], "PreCompact": [{"hooks": []}]}}


def test_uninstall_leaves_other_agents_commands(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    other = {"hooks": [{"type": "command", "command": "codememory hook --agent cursor"}]}
    path.write_text(json.dumps({"hooks": {"Stop": [other]}}), encoding="utf-8")

    assert not uninstall_hooks("claude", tmp_path).changed
    assert not uninstall_hooks("claude", tmp_path, command="cm").changed
