from __future__ import annotations

from datetime import UTC, datetime

from codememory.events import (
    MemoryScope,
    MemoryStored,
    PromptSubmitted,
    SessionStarted,
    SessionSummarized,
    ToolFailed,
    ToolObserved,
    new_envelope,
)
from codememory.memory import memory_from_envelope


def _env(event):  # type: ignore[no-untyped-def]
    return new_envelope(event, event_id="e1", tenant="t", occurred_at=datetime(2026, 1, 2, tzinfo=UTC))


def test_prompt_becomes_a_prompt_memory_with_its_scope() -> None:
    draft = memory_from_envelope(
        _env(PromptSubmitted(session_id="s", agent="claude", prompt="fix login", repo="api", branch="main"))
    )
    assert draft is not None
    assert (draft.memory_id, draft.memory_type, draft.text, draft.repo, draft.branch) == (
        "e1",
        "prompt",
        "fix login",
        "api",
        "main",
    )
    assert draft.created_at == datetime(2026, 1, 2, tzinfo=UTC).timestamp()


def test_edit_observation_keeps_paths() -> None:
    event = ToolObserved(
        session_id="s",
        agent="claude",
        tool="Edit",
        kind="edit",
        paths=("src/a.py",),
        summary="Edited src/a.py",
    )
    draft = memory_from_envelope(_env(event))
    assert draft is not None and draft.paths == ("src/a.py",) and draft.memory_type == "observation"


def test_pre_tool_and_session_events_are_not_memories() -> None:
    pre = ToolObserved(session_id="s", agent="claude", tool="Bash", phase="pre", summary="Will run ls")
    assert memory_from_envelope(_env(pre)) is None
    assert memory_from_envelope(_env(SessionStarted(session_id="s", agent="claude"))) is None


def test_failure_memory() -> None:
    draft = memory_from_envelope(
        _env(ToolFailed(session_id="s", agent="claude", tool="Bash", command="pytest", error="1 failed"))
    )
    assert (
        draft is not None
        and draft.memory_type == "failure"
        and "pytest" in draft.text
        and "1 failed" in draft.text
    )


def test_explicit_memory_keeps_its_own_id_and_time() -> None:
    stored = MemoryStored(
        memory_id="m-1",
        text="we validate tokens in middleware",
        memory_type="decision",
        scope=MemoryScope(repo="api"),
        created_at="2023-05-08T13:56:00Z",
        importance=0.9,
    )
    draft = memory_from_envelope(_env(stored))
    assert draft is not None
    assert (draft.memory_id, draft.memory_type, draft.repo, draft.importance) == (
        "m-1",
        "decision",
        "api",
        0.9,
    )
    assert draft.created_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()


def test_a_summary_is_as_old_as_its_session_not_the_cycle_that_wrote_it() -> None:
    ended = datetime(2025, 12, 30, tzinfo=UTC).timestamp()
    summary = SessionSummarized(
        summary_id="x", session_id="s", summary="Session: asked: fix login", ended_at=ended
    )
    draft = memory_from_envelope(_env(summary))
    assert draft is not None and draft.created_at == ended and draft.memory_type == "summary"
    undated = memory_from_envelope(_env(SessionSummarized(summary_id="y", session_id="s", summary="Session")))
    assert undated is not None and undated.created_at == datetime(2026, 1, 2, tzinfo=UTC).timestamp()
