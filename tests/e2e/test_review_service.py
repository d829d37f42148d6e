"""The reviews service on the real stack: hooks -> ingest -> LOG -> reviews -> the hook's answer and LOG.

An edit that undoes what an earlier prompt asked for comes back to the agent from the real PostToolUse hook
in its own format, naming the instruction, and is recorded once as ``forgetting.detected``; a continuation
says nothing. A commit indexed with its history is reviewed (``commit.reviewed``: its changed symbol and
who depends on it) and its message is recalled with the file as working set, also after a replay.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from pathlib import Path

REPO = "example.com/acme/reviewdemo"


def _events(stack, kind: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    lines = stack.cli("log", "--json").stdout.splitlines()
    return [e for e in map(json.loads, lines) if e["payload"]["type"] == kind]


def _post_edit(stack, agent: str, session: str, path: str, old: str, new: str) -> str:  # type: ignore[no-untyped-def]
    event = "AfterTool" if agent == "gemini" else "PostToolUse"
    payload = {
        "session_id": session,
        "cwd": str(Path(path).parent),
        "hook_event_name": event,
        "tool_name": "replace" if agent == "gemini" else "Edit",
        "tool_input": {"file_path": path, "old_string": old, "new_string": new},
        "tool_response": {"filePath": path, "success": True},
        "tool_use_id": f"toolu_{uuid.uuid4().hex[:12]}",
    }
    return stack.hook(agent, json.dumps(payload).encode()).stdout.decode().strip()


def _prompt(stack, session: str, cwd: str, text: str) -> None:  # type: ignore[no-untyped-def]
    payload = {"session_id": session, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": text}
    stack.hook("claude", json.dumps(payload).encode())


def test_an_edit_undoing_an_instruction_is_told_to_the_agent_and_recorded_once(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    session = f"s-forget-{uuid.uuid4().hex[:8]}"
    path = str(tmp_path / "users.py")
    instruction = "Rename get_user to fetch_user everywhere, the old name is misleading"
    _prompt(stack, session, str(tmp_path), instruction)
    assert _post_edit(stack, "claude", session, path, "def get_user(uid):", "def fetch_user(uid):") == ""
    stack.wait_caught_up()
    _prompt(stack, session, str(tmp_path), "Now add logging to the loader")
    stack.wait_caught_up()

    # a continuation of the instructed change: silent
    assert (
        _post_edit(stack, "claude", session, path, "    return get_user(uid)", "    return fetch_user(uid)")
        == ""
    )
    started = time.monotonic()
    out = _post_edit(stack, "claude", session, path, "def fetch_user(uid):", "def get_user(uid):")
    took = time.monotonic() - started
    told = json.loads(out)["hookSpecificOutput"]
    assert told["hookEventName"] == "PostToolUse"
    assert instruction in told["additionalContext"]
    assert "renamed `fetch_user` back to `get_user`" in told["additionalContext"]
    assert took < 5  # the whole hook process, with the question, stays well inside an agent's hook timeout

    stack.wait_caught_up()
    found = [e for e in _events(stack, "forgetting.detected") if e["payload"]["session_id"] == session]
    assert len(found) == 1, found
    assert found[0]["payload"]["instruction"] == instruction and found[0]["payload"]["instructed_turn"] == 1

    # Gemini reads it from AfterTool's hookSpecificOutput
    gemini = f"s-gem-{uuid.uuid4().hex[:8]}"
    _prompt(stack, gemini, str(tmp_path), "Add a timeout parameter to fetch_all, 30 seconds by default")
    _post_edit(stack, "gemini", gemini, path, "def fetch_all(url):", "def fetch_all(url, timeout=30):")
    stack.wait_caught_up()
    _prompt(stack, gemini, str(tmp_path), "Fix the failing test")
    stack.wait_caught_up()
    out = _post_edit(stack, "gemini", gemini, path, "def fetch_all(url, timeout=30):", "def fetch_all(url):")
    assert "removed `timeout=30`" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_a_commit_is_reviewed_and_its_message_is_recalled_with_the_file(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "reviewdemo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "pricing.py").write_text("def total(items):\n    return sum(i.price for i in items)\n")
    (root / "shop" / "cart.py").write_text(
        "from shop.pricing import total\n\n\ndef checkout(cart):\n    return total(cart.items)\n"
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "add", ".")
    _git(root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q", "-m", "shop: first")
    marker = uuid.uuid4().hex[:6]
    (root / "shop" / "pricing.py").write_text(
        "def total(items):\n    return round(sum(i.price for i in items), 2)\n"
    )
    message = (
        f"pricing: totals are rounded to cents ({marker})\n\nFloat sums drifted by 1e-12 and broke receipts."
    )
    _git(root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q", "-am", message)
    sha = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()

    stack.cli("index", str(root), "--history", "--repo", REPO)
    deadline = time.monotonic() + 60
    reviews: list[dict] = []  # type: ignore[type-arg]
    while time.monotonic() < deadline and not reviews:
        stack.wait_caught_up()
        reviews = [e for e in _events(stack, "commit.reviewed") if e["payload"]["sha"] == sha]
    assert len(reviews) == 1
    review = reviews[0]["payload"]
    assert review["repo"] == REPO and "shop/pricing.py" in review["files"]
    changed = {c["qualname"]: c for c in review["changed"]}
    assert "shop.pricing.total" in changed, review
    assert changed["shop.pricing.total"]["direct_dependents"] >= 1  # shop.cart.checkout calls it
    assert 0 < review["risk"] <= 1 and set(review["risk_parts"]) == {"fan_in", "reach", "churn", "untested"}

    def recalled() -> dict:  # type: ignore[type-arg]
        found = stack.cli_json(
            "recall", "why are totals rounded", "--repo", REPO, "--working", "shop/pricing.py"
        )
        return next(h for h in found["hits"] if marker in h["memory"]["text"])

    hit = recalled()
    assert hit["memory"]["type"] == "commit" and sha[:12] in hit["memory"]["text"]
    stack.cli("replay")  # the projections rebuilt from LOG keep it (and the review stays one event)
    stack.wait_caught_up()
    assert recalled()["memory"]["id"] == hit["memory"]["id"]
    assert len([e for e in _events(stack, "commit.reviewed") if e["payload"]["sha"] == sha]) == 1
