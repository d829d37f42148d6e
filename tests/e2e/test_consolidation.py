"""Consolidation end to end: a real stack, the real model, ``codememory consolidate`` and recall after it.

A stack of its own: a cycle consolidates every memory of its tenant, which would change what the
shared stack's other tests recall.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Stack, launch, shutdown  # type: ignore[import-not-found]

REPO = "shop"


@pytest.fixture(scope="module")
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # finished sessions are summarised within a second of their end (the shared stack turns it off)
    running = launch(
        tmp_path_factory.mktemp("consolidation"), env={"CODEMEMORY_CONSOLIDATE_SUMMARY_DELAY_S": "1"}
    )
    yield running
    shutdown(running)


def _store(stack: Stack, text: str, session: str, when: str, kind: str = "decision") -> str:
    memory_id = str(uuid.uuid4())
    row = {"id": memory_id, "text": text, "type": kind, "repo": REPO, "session": session, "time": when}
    stack.cli("import", "-", stdin=(json.dumps(row) + "\n").encode())
    return memory_id


def test_consolidation_supersedes_merges_and_replays(own_stack: Stack) -> None:
    old = _store(
        own_stack, "Use 4 spaces for indentation in Python files.", "s1", "2026-01-10T10:00:00+00:00"
    )
    _store(
        own_stack,
        "The payment service talks to Stripe through the gateway module.",
        "s1",
        "2026-01-10T10:05:00+00:00",
    )
    new = _store(
        own_stack, "From now on indent Python files with 2 spaces.", "s2", "2026-02-10T10:00:00+00:00"
    )
    restated = [
        _store(
            own_stack, "We lint the code with ruff, not flake8.", "s3", "2026-01-12T09:00:00+00:00", "prompt"
        ),
        _store(
            own_stack,
            "Remember: we lint the code with ruff and not flake8.",
            "s4",
            "2026-01-20T09:00:00+00:00",
            "prompt",
        ),
        _store(
            own_stack, "Lint the code with ruff, not with flake8.", "s5", "2026-02-01T09:00:00+00:00", "note"
        ),
    ]
    manual_old = _store(own_stack, "Deploys happen on Tuesdays.", "s6", "2026-01-05T09:00:00+00:00")
    manual_new = _store(own_stack, "Ship releases whenever main is green.", "s7", "2026-02-05T09:00:00+00:00")

    report = own_stack.cli_json("consolidate")
    assert report["superseded"] >= 1 and report["merged"] >= 2, report

    hits = own_stack.cli_json("recall", "how should I indent python files", "--repo", REPO)["hits"]
    assert hits[0]["memory"]["id"] == new
    before = {h["memory"]["id"]: h["memory"] for h in hits}
    if old in before:  # history, ranked below the rule that replaced it, with the link both ways
        assert before[old]["state"] == "superseded" and before[old]["superseded_by"] == new

    history = own_stack.cli_json("history", old)
    assert history["memory"]["state"] == "superseded"
    assert "memory.superseded" in [e["event"] for e in history["entries"]]
    assert [r["id"] for r in history["related"]] == [new]

    lint = own_stack.cli_json("recall", "which linter do we use", "--repo", REPO)["hits"]
    lint_ids = [h["memory"]["id"] for h in lint if h["memory"]["id"] in restated]
    assert len(lint_ids) == 1, lint  # the canonical memory once
    canonical = next(h["memory"] for h in lint if h["memory"]["id"] in restated)
    assert canonical["restated"] == 3
    with_history = own_stack.cli_json("recall", "which linter do we use", "--repo", REPO, "--include-history")
    assert {h["memory"]["id"] for h in with_history["hits"]} >= set(restated)
    back = next(i for i in restated if i != canonical["id"])  # a merge taken back, by hand
    own_stack.cli("unmerge", canonical["id"], back, "--reason", "not the same rule")
    assert own_stack.cli_json("history", back)["memory"]["state"] == "active"
    assert own_stack.cli_json("history", canonical["id"])["memory"]["restated"] == 2
    merged = own_stack.cli_json("merge", canonical["id"], back, "--reason", "the same rule after all")
    assert merged["memory_ids"] == [back] and merged["seq"] > 0  # and by hand again
    assert own_stack.cli_json("history", back)["memory"]["merged_into"] == canonical["id"]
    assert own_stack.cli_json("history", canonical["id"])["memory"]["restated"] == 3
    refused = own_stack.cli("merge", back, manual_old, check=False)  # into a merged memory: refused
    assert refused.returncode != 0 and b"INVALID_ARGUMENT" in refused.stderr

    own_stack.cli("supersede", manual_old, manual_new, "--reason", "release policy changed")
    assert own_stack.cli_json("history", manual_old)["memory"]["superseded_by"] == manual_new

    replayed = own_stack.cli_json("replay")  # the log alone rebuilds every conclusion: no cycle runs
    assert replayed["digest_before"] == replayed["digest_after"]
    assert own_stack.cli_json("history", old)["memory"]["state"] == "superseded"
    again = own_stack.cli_json("consolidate")  # nothing new: a second cycle concludes nothing twice
    assert again["superseded"] == 0 and again["merged"] == 0, again


def test_consolidate_refuses_unknown_ids_clearly(own_stack: Stack) -> None:
    result = own_stack.cli("supersede", str(uuid.uuid4()), str(uuid.uuid4()), check=False)
    assert result.returncode != 0 and b"NOT_FOUND" in result.stderr
    result = own_stack.cli("history", "not-a-uuid", check=False)
    assert result.returncode != 0 and b"INVALID_ARGUMENT" in result.stderr


def _claude(stack: Stack, cwd: Path, session: str, event: str, **fields: object) -> dict:  # type: ignore[type-arg]
    payload = {"session_id": session, "cwd": str(cwd), "hook_event_name": event, **fields}
    out = stack.hook("claude", json.dumps(payload).encode()).stdout
    return json.loads(out) if out.strip() else {}


def test_a_finished_session_leaves_lessons_and_a_summary_for_the_next(own_stack: Stack) -> None:
    cwd = own_stack.home / "shopfront"
    (cwd / ".git").mkdir(parents=True, exist_ok=True)
    (cwd / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    session = f"sess-{uuid.uuid4().hex[:8]}"
    _claude(own_stack, cwd, session, "UserPromptSubmit", prompt="Make the cart totals test pass")
    bash = {"tool_name": "Bash", "tool_input": {"command": "pytest -q tests/test_cart.py"}}
    _claude(own_stack, cwd, session, "PostToolUseFailure", error="1 failed: test_totals rounds wrong", **bash)
    edit = {"file_path": str(cwd / "shop" / "cart.py"), "old_string": "round(t)", "new_string": "round(t, 2)"}
    _claude(own_stack, cwd, session, "PostToolUse", tool_name="Edit", tool_input=edit, tool_response={})
    passed = {"stdout": "12 passed in 0.3s", "stderr": "", "interrupted": False}
    _claude(own_stack, cwd, session, "PostToolUse", tool_response=passed, **bash)
    correction = "No, don't round in the view; round the totals in the model instead."
    _claude(own_stack, cwd, session, "UserPromptSubmit", prompt=correction)
    _claude(own_stack, cwd, session, "SessionEnd", reason="exit")

    deadline = time.monotonic() + 60
    while True:
        found = own_stack.cli_json("recall", "cart totals test failed", "--type", "insight", "--limit", "20")
        titles = [h["memory"]["text"] for h in found["hits"] if h["memory"]["scope"]["session_id"] == session]
        if len(titles) >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert any("`pytest -q tests/test_cart.py` failed, then passed after changing" in t for t in titles), (
        titles
    )
    assert any(t.startswith("No, don't round in the view") for t in titles), titles
    summaries = own_stack.cli_json("recall", "cart totals", "--type", "summary")["hits"]
    assert any(h["memory"]["scope"]["session_id"] == session for h in summaries)

    context = _claude(own_stack, cwd, f"next-{session}", "SessionStart", source="startup")
    injected = context["hookSpecificOutput"]["additionalContext"]
    assert "pytest -q tests/test_cart.py" in injected  # the lesson or the summary, in the next session


def test_use_keeps_an_old_observation_and_a_cycle_links_neighbours(own_stack: Stack) -> None:
    """Issue 11 items 4 and 6 end to end: what recall returned is recorded (``memories.recalled``, in
    batches by the gateway), an observation nobody recalled in 30 days is archived while one recalled
    stays, and a cycle links a memory to its nearest neighbours by meaning."""
    old = "2026-01-01T09:00:00+00:00"
    seen = "observation"
    used = _store(own_stack, "Bash: make migrate-staging\nApplied 3 migrations to staging", "s8", old, seen)
    unused = _store(own_stack, "Read docs/old-runbook.md\nThe 2024 on-call rota", "s9", old, seen)
    refresh = _store(
        own_stack, "The staging database is refreshed from production every Sunday night.", "s10", old
    )
    masked = _store(
        own_stack, "The staging refresh job copies production data and masks customer emails.", "s11", old
    )
    question = "how do I apply the migrations to staging"
    hits = own_stack.cli_json("recall", question, "--repo", REPO, "--limit", "1")["hits"]
    assert [h["memory"]["id"] for h in hits] == [used]  # recalled: the other is never returned
    time.sleep(3)  # the gateway appends what recall returned every 2 s

    report = own_stack.cli_json("consolidate")
    assert report["archived"] >= 1 and report["linked"] >= 2, report
    assert own_stack.cli_json("history", unused)["memory"]["state"] == "archived"
    assert own_stack.cli_json("history", used)["memory"]["state"] == "active"
    assert refresh in own_stack.cli_json("history", masked)["memory"]["links"]  # cosine 0.66
