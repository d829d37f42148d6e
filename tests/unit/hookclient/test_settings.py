"""Hook settings: environment first, then runtime.json, then defaults; immutable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codememory.hookclient.settings import HookSettings


def test_defaults(tmp_path: Path) -> None:
    settings = HookSettings.from_env({"CODEMEMORY_HOME": str(tmp_path)})
    assert settings.home == str(tmp_path)
    assert settings.nats_url is None
    assert settings.tenant == "local"
    assert settings.hook_timeout_s == 1.0
    assert settings.context_timeout_s == 0.4
    assert settings.max_field == 16384
    assert settings.spool_path == str(tmp_path / "spool" / "hooks.jsonl")
    assert settings.log_path == str(tmp_path / "logs" / "hook.log")


def test_home_defaults_to_dot_codememory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert HookSettings.from_env({}).home == str(tmp_path / ".codememory")


def test_environment_overrides(tmp_path: Path) -> None:
    settings = HookSettings.from_env(
        {
            "CODEMEMORY_HOME": str(tmp_path),
            "CODEMEMORY_NATS_URL": "nats://127.0.0.1:1234",
            "CODEMEMORY_TENANT": "acme",
            "CODEMEMORY_HOOK_TIMEOUT_MS": "250",
            "CODEMEMORY_CONTEXT_TIMEOUT_MS": "50",
            "CODEMEMORY_HOOK_MAX_FIELD": "4096",
        }
    )
    assert settings.nats_url == "nats://127.0.0.1:1234"
    assert settings.tenant == "acme"
    assert settings.hook_timeout_s == 0.25
    assert settings.context_timeout_s == 0.05
    assert settings.max_field == 4096


def test_nats_url_from_runtime_json(tmp_path: Path) -> None:
    (tmp_path / "runtime.json").write_text(json.dumps({"nats_url": "nats://127.0.0.1:4999", "pid": 1}))
    assert HookSettings.from_env({"CODEMEMORY_HOME": str(tmp_path)}).nats_url == "nats://127.0.0.1:4999"
    env = {"CODEMEMORY_HOME": str(tmp_path), "CODEMEMORY_NATS_URL": "nats://127.0.0.1:1"}
    assert HookSettings.from_env(env).nats_url == "nats://127.0.0.1:1"


def test_broken_runtime_json_and_bad_numbers_fall_back(tmp_path: Path) -> None:
    (tmp_path / "runtime.json").write_text("{not json")
    settings = HookSettings.from_env({"CODEMEMORY_HOME": str(tmp_path), "CODEMEMORY_HOOK_TIMEOUT_MS": "soon"})
    assert settings.nats_url is None
    assert settings.hook_timeout_s == 1.0


def test_immutable_and_replace(tmp_path: Path) -> None:
    settings = HookSettings(home=str(tmp_path))
    with pytest.raises(AttributeError):
        settings.tenant = "other"  # type: ignore[misc]
    other = settings.replace(tenant="other")
    assert other.tenant == "other" and settings.tenant == "local"
    assert other != settings and other == settings.replace(tenant="other")
    assert "tenant='other'" in repr(other)
