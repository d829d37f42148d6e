"""ReviewDiff over gRPC on the gateway's real servicer: the answer, status codes, tenancy."""

from __future__ import annotations

import grpc
from codestack import META, OTHER_TENANT, CodeStack, code_stack, shop  # type: ignore[import-not-found]

from codememory.v1 import code_pb2 as cpb

__all__ = ["code_stack", "shop"]  # the fixtures, used by name

DIFF = """--- a/shop/pay.py
+++ b/shop/pay.py
@@ -2 +2 @@ def validate(amount):
-    return amount > 0
+    return amount >= 0
--- /dev/null
+++ b/shop/new.py
@@ -0,0 +1 @@
+x = 1
"""


async def test_review_diff_answers_every_part(shop: CodeStack) -> None:
    review = await shop.stub.ReviewDiff(cpb.ReviewDiffRequest(repo="shop", diff=DIFF), metadata=META)
    assert [(f.path, f.status, f.indexed) for f in review.files] == [
        ("shop/pay.py", "modified", True),
        ("shop/new.py", "added", False),
    ]
    assert [s.qualname for s in review.changed] == ["shop.pay.validate"]
    direct = {(d.name, d.distance) for d in review.dependents}
    assert {("shop.pay.settle", 1), ("shop.pay.Gateway.charge", 1), ("shop.api.checkout", 2)} <= direct
    assert {p.name for p in review.risk.parts} == {"centrality", "fan_in", "churn", "fix_ratio", "untested"}
    assert review.risk.level in ("low", "medium", "high") and review.took_ms > 0
    assert [h.subject for h in review.history] == ["first"]
    assert "shop/api.py" in {m.path for m in review.missing}  # the first commit changed both
    capped = await shop.stub.ReviewDiff(
        cpb.ReviewDiffRequest(repo="shop", diff=DIFF, max_dependents=1), metadata=META
    )
    assert len(capped.dependents) == 1 and capped.dependents_truncated


async def test_bad_requests_are_invalid_argument(shop: CodeStack) -> None:
    assert (
        await shop.fails("ReviewDiff", cpb.ReviewDiffRequest(diff=DIFF)) == grpc.StatusCode.INVALID_ARGUMENT
    )
    huge = cpb.ReviewDiffRequest(repo="shop", diff="x" * 4_000_001)
    assert await shop.fails("ReviewDiff", huge) == grpc.StatusCode.INVALID_ARGUMENT
    deep = cpb.ReviewDiffRequest(repo="shop", diff=DIFF, depth=11)
    assert await shop.fails("ReviewDiff", deep) == grpc.StatusCode.INVALID_ARGUMENT
    empty = await shop.stub.ReviewDiff(cpb.ReviewDiffRequest(repo="shop", diff=""), metadata=META)
    assert list(empty.files) == [] and list(empty.changed) == []


async def test_another_tenant_sees_none_of_the_code(shop: CodeStack) -> None:
    theirs = await shop.stub.ReviewDiff(cpb.ReviewDiffRequest(repo="shop", diff=DIFF), metadata=OTHER_TENANT)
    assert [f.indexed for f in theirs.files] == [False, False]
    assert list(theirs.changed) == list(theirs.dependents) == list(theirs.history) == []
