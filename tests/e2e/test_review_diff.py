"""``codememory review`` end to end: a real repository indexed with its history into ``codememory up``,
reviewed from a pipe, the work tree, the index and a range, and over gRPC: the changed symbols, their
dependents, the risk, the missing changes, the memory about the code and the commit that documented the
rule a later, misleadingly named commit broke.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from coderepo import PAY_V2, git, make_repo  # type: ignore[import-not-found]
from conftest_paths import BIN  # type: ignore[import-not-found]

from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc

REPO = "example.com/acme/review-shop"
RULE = "pay: validate refuses zero amounts because a zero charge opens a refund loophole"
PARTS = {"changed", "dependents", "risk", "missing", "memories", "history"}


@pytest.fixture(scope="module")
def shop(stack, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """The code-graph tests' repository under its own identity, then a rule, noise and a misleading change."""
    root = tmp_path_factory.mktemp("review") / "shop"
    make_repo(root)
    git(root, "remote", "set-url", "origin", f"https://{REPO}.git")
    (root / "tests").mkdir()
    (root / "tests/test_pay.py").write_text(
        "from shop.pay import settle\n\n\ndef test_settle():\n    settle(1)\n"
    )
    (root / "CHANGELOG.md").write_text("- validate refuses zero\n")
    pay = (root / "shop/pay.py").read_text()
    (root / "shop/pay.py").write_text(pay.replace('ValueError("amount")', 'ValueError("amount must be > 0")'))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", RULE, when="2026-03-10T10:00:00Z")
    (root / "README.txt").write_text("The shop, with docs.\n")
    git(root, "commit", "-q", "-am", "docs: readme", when="2026-03-11T10:00:00Z")
    pay = (root / "shop/pay.py").read_text()
    (root / "shop/pay.py").write_text(pay.replace("if amount <= 0:", "if amount < 0:"))
    git(root, "commit", "-q", "-am", "tidy up", when="2026-03-12T10:00:00Z")
    assert stack.cli_json("index", str(root), "--history")["repo"] == REPO
    stack.cli("store", "Zero amounts must be refused by validate: refunds", "--type", "decision",
              "--repo", REPO, "--path", "shop/pay.py")  # fmt: skip
    return root


def _review(stack, root: Path, *args: str, stdin: bytes | None = None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    done = subprocess.run(
        [str(BIN / "codememory"), "review", *args, "--json"],
        cwd=root, env=stack.env, input=stdin, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    found: dict[str, Any] = json.loads(done.stdout)
    assert set(found) == PARTS
    return found


def _eventually(check, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while (found := check()) is None:
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)
    return found


def test_review_of_the_work_tree_a_pipe_the_index_and_a_range(stack, shop: Path) -> None:  # type: ignore[no-untyped-def]
    pay = shop / "shop/pay.py"
    original = pay.read_text()
    pay.write_text(original.replace("def settle(amount):", "def settle(amount, currency):"))
    try:

        def with_memory() -> dict[str, Any] | None:  # the memory's fold is asynchronous
            found = _review(stack, shop)
            return found if found["memories"] else None

        work = _eventually(with_memory)
        assert [s["qualname"] for s in work["changed"]] == ["shop.pay.settle"]
        assert work["changed"][0]["signature_changed"]
        by_name = {d["name"]: d for d in work["dependents"]}
        assert (
            by_name["shop.api.checkout"]["distance"] == 1 and by_name["shop.api.checkout"]["edge"] == "calls"
        )
        assert {p["name"] for p in work["risk"]["parts"]} == {
            "centrality",
            "fan_in",
            "churn",
            "fix_ratio",
            "untested",
        }
        missing = {m["path"]: m for m in work["missing"]}
        assert (
            missing["shop/api.py"]["symbol"] == "shop.api.checkout"
            and "new signature" in missing["shop/api.py"]["reason"]
        )
        assert all({"path", "score", "reason"} <= set(m) for m in work["missing"])
        assert "refunds" in work["memories"][0]["text"] and work["memories"][0]["about"] == ["shop/pay.py"]

        piped = _review(stack, shop, stdin=git(shop, "diff").encode())
        assert [s["qualname"] for s in piped["changed"]] == ["shop.pay.settle"]
        git(shop, "add", "shop/pay.py")
        staged = _review(stack, shop, "--staged")
        assert [s["qualname"] for s in staged["changed"]] == ["shop.pay.settle"]
    finally:
        git(shop, "reset", "-q", "shop/pay.py")
        pay.write_text(original)

    ranged = _review(stack, shop, "--range", "HEAD~1..HEAD")  # "tidy up": the graph holds its new side
    assert [s["qualname"] for s in ranged["changed"]] == ["shop.pay.validate"]
    subjects = [h["subject"] for h in ranged["history"]]
    assert subjects[0] == RULE and "tidy up" in subjects  # blame shows "tidy up"; the rule comes first
    assert "gives a reason" in ranged["history"][0]["reason"]

    table = subprocess.run(
        [str(BIN / "codememory"), "review", "--range", "HEAD~1..HEAD"],
        cwd=shop, env=stack.env, capture_output=True, timeout=120, text=True,
    )  # fmt: skip
    assert (
        table.returncode == 0
        and "commits that explain it" in table.stdout
        and "shop.pay.validate" in table.stdout
    )


def test_review_diff_over_grpc_and_bad_input(stack, shop: Path) -> None:  # type: ignore[no-untyped-def]
    code = code_pb2_grpc.CodeServiceStub(grpc.insecure_channel(stack.grpc_address))
    meta = (("authorization", f"Bearer {stack.token()}"),)
    diff = git(shop, "diff", "HEAD~2..HEAD")
    review = code.ReviewDiff(
        cpb.ReviewDiffRequest(repo=REPO, diff=diff, new_side=True), metadata=meta, timeout=30
    )
    assert "shop.pay.validate" in {s.qualname for s in review.changed}
    assert review.history[0].subject == RULE and review.took_ms < 5000
    with pytest.raises(grpc.RpcError) as bad:
        code.ReviewDiff(cpb.ReviewDiffRequest(repo="", diff=diff), metadata=meta, timeout=30)
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    outside = subprocess.run(
        [str(BIN / "codememory"), "review", "--range", "nope..HEAD"],
        cwd=shop, env=stack.env, capture_output=True, timeout=120, text=True,
    )  # fmt: skip
    assert outside.returncode == 1 and outside.stderr.startswith("codememory: ") and "nope" in outside.stderr
    assert PAY_V2  # the version of pay.py the history starts from
