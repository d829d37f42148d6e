"""The code graph end to end: ``codememory index --history`` on a real git repository, graph and temporal
queries over the CLI and gRPC, code search, edits reported by hooks, graph-aware recall, replay.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from coderepo import PAY_V2, REPO, git, make_repo  # type: ignore[import-not-found]
from conftest_paths import BIN  # type: ignore[import-not-found]

from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc
from codememory.v1 import memory_pb2 as pb


@pytest.fixture(scope="module")
def repo(stack, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("code") / "shop"
    shas = make_repo(root)
    summary = stack.cli_json("index", str(root), "--history")
    assert summary["repo"] == REPO
    return root, shas


def _meta(stack) -> tuple[tuple[str, str], ...]:  # type: ignore[no-untyped-def]
    return (("authorization", f"Bearer {stack.token()}"),)


def _code(stack) -> code_pb2_grpc.CodeServiceStub:  # type: ignore[no-untyped-def]
    return code_pb2_grpc.CodeServiceStub(grpc.insecure_channel(stack.grpc_address))


def _graph(stack, *args: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return stack.cli_json("graph", *args, "--repo", REPO)


def test_index_reports_languages_and_skips_ignored_and_unchanged_files(stack, repo) -> None:  # type: ignore[no-untyped-def]
    root, _ = repo
    again = stack.cli_json("index", str(root))
    assert again["skipped_unchanged"] >= 9 and again["parsed"] == 0
    hashes = _code(stack).IndexedFiles(cpb.IndexedFilesRequest(repo=REPO), metadata=_meta(stack), timeout=10)
    files = set(hashes.content_hashes)
    assert {"shop/pay.py", "web/client.ts", "svc/main.go", "core/src/lib.rs", "app/Shop.java"} <= files
    assert "README.txt" in files  # degraded to a file node
    assert "build/generated.py" not in files  # .gitignore honoured
    assert "web/view.ts" not in files  # renamed away


def test_indexing_a_missing_directory_is_one_clear_line(stack, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = stack.cli("index", str(tmp_path / "nowhere"), check=False)
    assert result.returncode == 1
    assert result.stderr.decode().strip() == f"codememory: not a directory: {tmp_path / 'nowhere'}"


def test_symbol_info_callers_and_dependents(stack, repo) -> None:  # type: ignore[no-untyped-def]
    info = _graph(stack, "symbol", "shop.pay.Gateway.charge")
    assert info["symbol"]["path"] == "shop/pay.py"
    assert info["symbol"]["signature"].startswith("def charge")
    assert "shop.pay.validate" in {n["qualname"] for n in info["callees"]}
    settle = _graph(stack, "symbol", "settle")  # a bare name, unique in the repository
    assert "shop.api.checkout" in {n["qualname"] for n in settle["callers"]}
    direct = {n["qualname"] for n in _graph(stack, "dependents", "shop.pay.validate")["nodes"]}
    assert {"shop.pay.Gateway.charge", "shop.pay.settle"} <= direct and "shop.api.checkout" not in direct
    transitive = {
        n["qualname"] for n in _graph(stack, "dependents", "shop.pay.validate", "--transitive")["nodes"]
    }
    assert "shop.api.checkout" in transitive


def test_path_between_two_symbols(stack, repo) -> None:  # type: ignore[no-untyped-def]
    steps = _graph(stack, "path", "shop.api.checkout", "shop.pay.validate")["steps"]
    names = [s["node"].get("qualname") for s in steps]
    assert names[0] == "shop.api.checkout" and names[-1] == "shop.pay.validate"
    assert len(names) >= 3


def test_history_changed_between_and_as_of(stack, repo) -> None:  # type: ignore[no-untyped-def]
    _, shas = repo
    history = _graph(stack, "history", "shop.pay.Gateway.charge")
    assert [c["sha"] for c in history["changes"] if c["sha"]] == shas[:2]
    changed = _graph(stack, "changed", "--start", shas[0], "--end", shas[1])
    assert changed["files"] == ["shop/pay.py"]
    assert "shop.pay.Gateway.charge" in changed["symbols"]
    then = _graph(stack, "as-of", "--commit", shas[0], "--node", "web/view.ts", "--node", "web/render.ts")
    assert then["exists"] == {"web/view.ts": True, "web/render.ts": False}
    now = _graph(stack, "as-of", "--commit", shas[2], "--node", "web/view.ts", "--node", "web/render.ts")
    assert now["exists"] == {"web/view.ts": False, "web/render.ts": True}
    together = {n["path"] for n in _graph(stack, "cochange", "web/client.ts")["nodes"]}
    assert "web/render.ts" in together


def test_search_code_ranks_the_right_symbol(stack, repo) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60
    while True:
        hits = stack.cli_json("search-code", "charge a card for a payment", "--repo", REPO)["hits"]
        if (hits and hits[0]["dense"] > 0) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert hits[0]["qualname"] == "shop.pay.Gateway.charge"
    assert hits[0]["dense"] > 0 and hits[0]["lexical"] > 0
    other = _code(stack).SearchCode(
        cpb.SearchCodeRequest(query="charge a card", repo=REPO),
        metadata=(("authorization", "Bearer tok-alpha"),),
        timeout=10,
    )
    assert list(other.hits) == []  # another tenant sees nothing


def test_an_edit_reported_by_a_hook_updates_the_graph_and_flags_memories(stack, repo) -> None:  # type: ignore[no-untyped-def]
    root, _ = repo
    marker = f"ledger{uuid.uuid4().hex[:6]}"
    written = datetime.now(UTC) - timedelta(hours=1)  # a memory from before the edit
    stored = stack.stub().Store(
        pb.StoreRequest(
            text=f"Gateway.charge rounds amounts to cents ({marker})",
            scope=pb.Scope(repo=REPO, paths=["shop/pay.py"]),
            created_at=written.isoformat(),
        ),
        metadata=_meta(stack),
        timeout=10,
    )
    before = len(_graph(stack, "history", "shop.pay.Gateway.charge")["changes"])
    (root / "shop/pay.py").write_text(PAY_V2.replace("round(checked, 2)", "int(checked * 100)"))
    payload = {
        "session_id": str(uuid.uuid4()),
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / "shop/pay.py"), "old_string": "round", "new_string": "int"},
        "tool_response": {"filePath": str(root / "shop/pay.py"), "success": True},
    }
    assert stack.hook("claude", json.dumps(payload).encode()).returncode == 0
    stack.wait_caught_up()
    deadline = time.monotonic() + 30
    while len(_graph(stack, "history", "shop.pay.Gateway.charge")["changes"]) <= before:
        assert time.monotonic() < deadline, "the edit never reached the graph"
        time.sleep(0.3)
    response = stack.stub().Recall(
        pb.RecallRequest(query=f"how are amounts rounded {marker}", repo=REPO, working_set=["shop/api.py"]),
        metadata=_meta(stack),
        timeout=10,
    )
    hit = next(h for h in response.hits if h.memory.id == stored.memory_id)
    assert "shop.pay.Gateway.charge" in hit.suspect
    assert hit.score.graph > 0
    git(root, "checkout", "-q", "--", "shop/pay.py")


def test_replay_rebuilds_the_same_graph(stack, repo) -> None:  # type: ignore[no-untyped-def]
    result = stack.cli_json("replay")
    assert result["graph_digest_before"] == result["graph_digest_after"] != ""


def test_bad_code_facts_are_refused_with_a_clear_error(stack) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as caught:
        _code(stack).RecordCode(
            iter([cpb.CodeFact(event_json=b'{"type": "memory.stored"}')]), metadata=_meta(stack)
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as caught:
        _code(stack).SymbolInfo(
            cpb.SymbolInfoRequest(repo=REPO, symbol="no.such.symbol"), metadata=_meta(stack)
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_post_commit_hook_records_each_commit(stack, repo) -> None:  # type: ignore[no-untyped-def]
    root, _ = repo
    codememory = str(BIN / "codememory")
    out = stack.cli("install-hooks", "--git", "--project", str(root), "--command", codememory).stdout.decode()
    assert "post-commit" in out
    refunds = 'def refund(amount):\n    """Give money back."""\n    return amount\n'
    (root / "shop/refunds.py").write_text(refunds)
    git(root, "add", "shop/refunds.py", env=stack.env)
    git(root, "commit", "-q", "-m", "refunds", when="2026-04-05T10:00:00Z", env=stack.env)
    head = git(root, "rev-parse", "HEAD")
    last = cpb.LastCommitResponse()
    deadline = time.monotonic() + 60
    while last.sha != head:
        assert time.monotonic() < deadline, "the post-commit hook did not record the commit"
        time.sleep(0.3)
        last = _code(stack).LastCommit(cpb.LastCommitRequest(repo=REPO), metadata=_meta(stack), timeout=10)
    info = _graph(stack, "symbol", "shop.refunds.refund")
    assert info["symbol"]["path"] == "shop/refunds.py"


def test_two_repositories_in_folders_named_alike_stay_two(stack, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    """Indexing with history one repository in ``a/repo``, then another in ``b/repo``: two repositories;
    a linked worktree of the first is the first (its files are already known)."""
    base = tmp_path_factory.mktemp("alike")
    summaries = []
    for side in ("a", "b"):
        root = base / side / "repo"
        root.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")
        (root / "mod.py").write_text(f"def only_in_{side}():\n    return 1\n")
        git(root, "add", "mod.py")
        git(root, "commit", "-q", "-m", f"first of {side}", when="2026-01-05T10:00:00Z")
        summaries.append(stack.cli_json("index", str(root), "--history"))
    a, b = summaries
    assert (a["repo"], b["repo"]) == (
        str((base / "a" / "repo").resolve()),
        str((base / "b" / "repo").resolve()),
    )
    assert (a["commits"], b["commits"]) == (1, 1)
    for side, summary in zip("ab", summaries, strict=True):
        info = stack.cli_json("graph", "symbol", f"mod.only_in_{side}", "--repo", summary["repo"])
        assert info["symbol"]["path"] == "mod.py"
    git(base / "a" / "repo", "worktree", "add", "-q", str(base / "wt"), "-b", "wip")
    again = stack.cli_json("index", str(base / "wt"), "--history")
    assert (again["repo"], again["parsed"], again["commits"]) == (a["repo"], 0, 0)


def test_a_folder_inside_a_repository_indexes_its_work_tree_and_says_so(stack, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("inside") / "repo"
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "top.py").write_text("def at_the_top():\n    return 1\n")
    (root / "pkg" / "mod.py").write_text("def in_pkg():\n    return 2\n")
    out = stack.cli("index", str(root / "pkg")).stdout.decode()
    assert f"is inside the git work tree {root.resolve()}: indexed all of it" in out
    assert ": 2 parsed," in out, out  # top.py too: the whole work tree
    plain = stack.cli("index", str(root)).stdout.decode()
    assert "is inside the git work tree" not in plain
