"""Fixtures for ingest tests: hook messages as the hook client publishes them, and the sample payloads."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

SAMPLES = HOOKS_DATA
REPO_ROOT = "/Users/tomkwon/Documents/claude-agentic-framework"

MessageFactory = Callable[..., bytes]


def build_message(agent: str, payload: dict[str, Any], /, **overrides: Any) -> bytes:
    """The JSON bytes of a hook message around ``payload``; ``overrides`` replace envelope fields."""
    event = payload.get("hook_event_name", "") if isinstance(payload, dict) else ""
    message: dict[str, Any] = {
        "v": 1,
        "agent": agent,
        "event": event,
        "tenant": "local",
        "received_at": "2026-11-22T06:00:00.123456Z",
        "dedupe_key": "0123456789abcdef0123456789abcdef",
        "repo": "claude-agentic-framework",
        "repo_root": REPO_ROOT,
        "branch": "main",
        "user": "tom",
        "trimmed": [],
        "payload": payload,
    }
    message.update(overrides)
    return json.dumps(message).encode()


def load_sample(name: str) -> dict[str, Any]:
    """A sample payload by its path under the samples directory, e.g. ``claude_docs/Stop.json``."""
    data: dict[str, Any] = json.loads((SAMPLES / name).read_text())
    return data


@pytest.fixture
def message() -> MessageFactory:
    """Build a hook message: ``message(agent, payload, **envelope_overrides) -> bytes``."""
    return build_message


@pytest.fixture
def sample() -> Callable[[str], dict[str, Any]]:
    """Load a sample payload: ``sample("claude_PostToolUse_Edit.json")``."""
    return load_sample
