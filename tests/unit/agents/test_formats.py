"""Each agent's file is in the shape that agent reads: checked against published schemas and payloads.

Claude Code is validated against the SchemaStore schema kept in ``shared/data/schemas``. Cursor,
Codex and Gemini CLI have no schema there, so each gets a small schema written from its source
(cited per schema) that is strict about the fields we write. Event names are cross-checked against
the real hook payloads in ``shared/data/hooks`` so a misspelt event cannot slip through.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator  # type: ignore[import-untyped]

from codememory.agents import SPECS, install_hooks
from shared_data import SHARED_DATA  # type: ignore[import-not-found]

SHARED = SHARED_DATA

_COMMAND = {"type": "string", "minLength": 1}
_TIMEOUT = {"type": "integer", "minimum": 1}


def _grouped(handler_props: dict[str, Any]) -> dict[str, Any]:
    handler = {
        "type": "object",
        "required": ["type", "command"],
        "additionalProperties": False,
        "properties": {"type": {"const": "command"}, "command": _COMMAND, **handler_props},
    }
    group = {
        "type": "object",
        "required": ["hooks"],
        "additionalProperties": False,
        "properties": {"matcher": {"type": "string"}, "hooks": {"type": "array", "items": handler}},
    }
    return {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "hooks": {"type": "object", "additionalProperties": {"type": "array", "items": group}}
        },
    }


# openai/codex codex-rs/hooks/src/engine/config.rs: HookHandlerConfig::Command {command,
# timeout (alias timeoutSec, u64 seconds), async, statusMessage}; MatcherGroup {matcher, hooks}.
CODEX_SCHEMA = _grouped(
    {"timeout": _TIMEOUT, "async": {"type": "boolean"}, "statusMessage": {"type": "string"}}
)
# google-gemini/gemini-cli docs/hooks/reference.md: type, command, name, timeout (ms), description.
GEMINI_SCHEMA = _grouped({"timeout": _TIMEOUT, "name": {"type": "string"}, "description": {"type": "string"}})
# johnlindquist/cursor-hooks schema/hooks.schema.json (the schema Cursor users point $schema at).
CURSOR_SCHEMA = {
    "type": "object",
    "required": ["version", "hooks"],
    "properties": {
        "version": {"const": 1},
        "hooks": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["command"],
                    "additionalProperties": False,
                    "properties": {"command": _COMMAND},
                },
            },
        },
    },
}


def _errors(schema: dict[str, Any], config: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in Draft7Validator(schema).iter_errors(config)]


def _install(agent: str, root: Path, existing: dict[str, Any] | None = None) -> dict[str, Any]:
    if existing is not None:
        path = root / SPECS[agent].relative_path
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(existing), encoding="utf-8")
    result = install_hooks(agent, root)
    data = json.loads(result.path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("existing", [None, "with_settings"])
def test_claude_settings_validate_against_schemastore(existing: str | None, tmp_path: Path) -> None:
    schema = json.loads((SHARED / "schemas" / "claude-code-settings.json").read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    before = None
    if existing:
        before = {
            "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
            "env": {"FOO": "bar"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]},
        }
        assert _errors(schema, before) == []
    assert _errors(schema, _install("claude", tmp_path, before)) == []


@pytest.mark.parametrize(("agent", "schema"), [("codex", CODEX_SCHEMA), ("gemini", GEMINI_SCHEMA)])
def test_grouped_agents_match_their_documented_shape(
    agent: str, schema: dict[str, Any], tmp_path: Path
) -> None:
    assert _errors(schema, _install(agent, tmp_path)) == []


def test_cursor_file_matches_published_schema(tmp_path: Path) -> None:
    data = _install("cursor", tmp_path)
    assert _errors(CURSOR_SCHEMA, data) == []
    assert list(data) == ["version", "hooks"]


def test_cursor_version_is_added_first_to_an_existing_file(tmp_path: Path) -> None:
    data = _install("cursor", tmp_path, {"hooks": {"afterFileEdit": [{"command": "fmt"}]}})
    assert list(data) == ["version", "hooks"]
    assert data["version"] == 1
    assert data["hooks"]["afterFileEdit"][0] == {"command": "fmt"}


def test_cursor_keeps_a_different_version(tmp_path: Path) -> None:
    assert _install("cursor", tmp_path, {"version": 2})["version"] == 2


def _timeouts(data: dict[str, Any]) -> dict[str, int]:
    return {event: groups[0]["hooks"][0]["timeout"] for event, groups in data["hooks"].items()}


def test_claude_and_codex_timeouts_are_seconds(tmp_path: Path) -> None:
    for agent in ("claude", "codex"):
        (tmp_path / agent).mkdir()
        timeouts = _timeouts(_install(agent, tmp_path / agent))
        assert timeouts["SessionStart"] == 10
        assert timeouts["UserPromptSubmit"] == 5
        assert timeouts["Stop"] == 30


def test_gemini_timeouts_are_milliseconds_and_named(tmp_path: Path) -> None:
    data = _install("gemini", tmp_path)
    timeouts = _timeouts(data)
    assert timeouts["SessionStart"] == 10_000
    assert timeouts["BeforeAgent"] == 5_000
    assert timeouts["AfterTool"] == 30_000
    assert data["hooks"]["AfterTool"][0]["matcher"] == "*"
    assert data["hooks"]["AfterTool"][0]["hooks"][0]["name"] == "codememory"


def test_gemini_disabled_list_is_kept(tmp_path: Path) -> None:
    data = _install("gemini", tmp_path, {"hooks": {"disabled": ["secret-scanner"]}, "ui": {"theme": "x"}})
    assert data["hooks"]["disabled"] == ["secret-scanner"]
    assert data["ui"] == {"theme": "x"}


def test_tool_events_match_every_tool_and_lifecycle_events_have_no_matcher(tmp_path: Path) -> None:
    data = _install("claude", tmp_path)
    assert data["hooks"]["PostToolUse"][0]["matcher"] == "*"
    assert data["hooks"]["PostToolUseFailure"][0]["matcher"] == "*"
    assert "matcher" not in data["hooks"]["SessionStart"][0]


def test_codex_writes_json_hooks_file_not_config_toml(tmp_path: Path) -> None:
    result = install_hooks("codex", tmp_path)
    assert result.path == tmp_path / ".codex" / "hooks.json"
    assert not (tmp_path / ".codex" / "config.toml").exists()


# Registered events that have no captured payload in shared/data/hooks (documented only).
UNSAMPLED = {
    "claude": set(),
    "cursor": {"subagentStop", "preCompact"},
    "codex": {"PostToolUse", "SubagentStop", "PreCompact"},
    "gemini": {"PreCompress"},
}


@pytest.mark.parametrize("agent", sorted(UNSAMPLED))
def test_event_names_match_real_payloads(agent: str) -> None:
    sampled: set[str] = set()
    for sample in (SHARED / "hooks").glob(f"{agent}_*.json"):
        payload = json.loads(sample.read_text(encoding="utf-8"))
        sampled.add(payload["hook_event_name"])
    registered = {e.event for e in SPECS[agent].events}
    assert registered - sampled == UNSAMPLED[agent]
