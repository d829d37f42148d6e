"""Real agent payloads through the real hook process, NATS, ingest, LOG, embed and Qdrant Edge, to recall."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from conftest_paths import HOOK_FILES, agent_of  # type: ignore[import-not-found]

from codememory.v1 import memory_pb2 as pb


def _local(stack) -> tuple[tuple[str, str], ...]:  # type: ignore[no-untyped-def]
    return (("authorization", f"Bearer {stack.token()}"),)


def test_every_shared_payload_is_ingested_without_error(stack) -> None:  # type: ignore[no-untyped-def]
    before = stack.wait_caught_up()
    for path in HOOK_FILES:
        result = stack.hook(agent_of(path), path.read_bytes())
        assert result.returncode == 0, result.stderr
    status = stack.wait_caught_up()
    assert status.stream_messages["DLQ"] == before.stream_messages["DLQ"], "a real payload was dead-lettered"
    assert status.log_last_seq >= before.log_last_seq + len(HOOK_FILES)
    events = [
        json.loads(line)
        for line in stack.cli("log", "--json", "--from", str(before.log_last_seq + 1)).stdout.splitlines()
    ]
    types = {e["payload"]["type"] for e in events}
    assert {"session.started", "prompt.submitted", "tool.observed", "tool.failed", "session.ended"} <= types
    assert {
        "subagent.completed",
        "compaction.checkpointed",
        "observation.recorded",
        "memory.embedded",
    } <= types
    assert all(e["seq"] > before.log_last_seq and e["tenant"] == "local" for e in events)


def test_a_prompt_is_recallable_over_grpc_with_score_parts(stack) -> None:  # type: ignore[no-untyped-def]
    marker = f"zebra{uuid.uuid4().hex[:6]}"
    payload = {
        "session_id": str(uuid.uuid4()),
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/work/api",
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"Remember: tokens are validated by validateAccessToken in auth/jwt_utils.py ({marker})",
    }
    published = time.monotonic()
    assert stack.hook("claude", json.dumps(payload).encode()).returncode == 0
    stub = stack.stub()
    hits: list[pb.Hit] = []
    lexical_first = None
    while time.monotonic() - published < 20 and not hits:  # lexically recallable at once, dense once embedded
        response = stub.Recall(
            pb.RecallRequest(query="how do we validate access tokens jwt", limit=5),
            metadata=_local(stack),
            timeout=10,
        )
        found = [h for h in response.hits if marker in h.memory.text]
        lexical_first = lexical_first or (found[0] if found else None)
        hits = [h for h in found if h.score.dense > 0]
    assert lexical_first is not None and hits, "prompt never became recallable"
    hit = hits[0]
    assert (
        hit.memory.type == "prompt"
        and hit.memory.tenant == "local"
        and hit.memory.scope.session_id == payload["session_id"]
    )
    assert hit.score.lexical > 0 and hit.score.dense > 0 and hit.score.recency > 0.9 and hit.score.total > 0
    assert hit.memory.created_at > time.time() - 120
    # the query went through ONNX Runtime (exported once into the model cache the test run shares, or
    # the stack's home) into the stored vectors' space
    cache = Path(stack.env.get("CODEMEMORY_GATEWAY_MODEL_CACHE") or Path(stack.home) / "models")
    assert list(cache.glob("*.onnx")) and list(cache.glob("*.reference.json"))
    assert "onnx_queries_unavailable" not in (Path(stack.home) / "up.log").read_text()
    assert hit.score.dense > 0.4


def test_code_aware_lexical_match_on_identifier_parts(stack) -> None:  # type: ignore[no-untyped-def]
    token = uuid.uuid4().hex[:6]
    stored = stack.cli_json(
        "store", f"parseRetryBudget{token} lives in net/retry_policy.py", "--repo", f"r{token}"
    )
    found = stack.cli_json("recall", f"parse retry budget{token}", "--repo", f"r{token}")
    assert found["hits"][0]["memory"]["id"] == stored["memory_id"]
    assert found["hits"][0]["score"]["lexical"] == 1.0


def test_session_start_hook_injects_context_in_each_agent_format(stack) -> None:  # type: ignore[no-untyped-def]
    repo_dir = Path(stack.home) / "ctxrepo"
    (repo_dir / ".git").mkdir(parents=True, exist_ok=True)
    (repo_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    # the repository is its origin remote, whatever its folder is called (hookclient/gitrepo.py)
    (repo_dir / ".git" / "config").write_text('[remote "origin"]\n\turl = git@example.com:acme/ctx.git\n')
    fact = f"Run migrations with make migrate-{uuid.uuid4().hex[:6]} before tests"
    stack.cli("store", fact, "--type", "instruction", "--repo", "example.com/acme/ctx")
    claude = {
        "session_id": "s-ctx",
        "cwd": str(repo_dir),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    out = json.loads(stack.hook("claude", json.dumps(claude).encode()).stdout)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert fact in context and context.startswith("<codememory-context>")
    cursor = {
        "conversation_id": "c-ctx",
        "hook_event_name": "sessionStart",
        "workspace_roots": [str(repo_dir)],
    }
    assert fact in json.loads(stack.hook("cursor", json.dumps(cursor).encode()).stdout)["additional_context"]


def test_injected_context_is_never_stored_again(stack) -> None:  # type: ignore[no-untyped-def]
    before = stack.wait_caught_up()
    injected = "<codememory-context>\n- [note] something recalled earlier\n</codememory-context>"
    payload = {"session_id": "s-inj", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": injected}
    stack.hook("claude", json.dumps(payload).encode())
    stack.wait_caught_up()
    events = [
        json.loads(line)
        for line in stack.cli("log", "--json", "--from", str(before.log_last_seq + 1)).stdout.splitlines()
    ]
    assert not [e for e in events if e["payload"]["type"] == "prompt.submitted"]
    assert "something recalled earlier" not in json.dumps(events)


def test_session_context_rpc_respects_the_budget(stack) -> None:  # type: ignore[no-untyped-def]
    repo = f"budget{uuid.uuid4().hex[:6]}"
    jobs = [
        "billing",
        "invoices",
        "exports",
        "imports",
        "thumbnails",
        "emails",
        "reports",
        "backups",
        "cleanup",
        "webhooks",
        "search",
        "indexing",
        "payouts",
        "refunds",
        "reminders",
        "digests",
        "audits",
        "sitemaps",
        "feeds",
        "quotas",
        "alerts",
        "metrics",
        "snapshots",
        "archives",
        "uploads",
        "transcodes",
        "previews",
        "receipts",
        "tokens",
        "sessions",
    ]
    for job in jobs:  # distinct texts: context leaves out lines that differ only in numbers
        stack.cli(
            "store",
            f"Rule: the {repo} service must log every retry of the {job} job with its attempt count",
            "--repo",
            repo,
        )
    stub = stack.stub()
    used = []
    for budget in (100, 500, 1500):
        response = stub.SessionContext(
            pb.SessionContextRequest(repo=repo, budget_tokens=budget), metadata=_local(stack), timeout=30
        )
        assert 0 < response.tokens <= budget and response.context.startswith("<codememory-context>")
        assert len(response.memory_ids) == response.context.count("\n- [")
        used.append(len(response.memory_ids))
    assert used[0] < used[1] <= used[2] and used[2] == 30
