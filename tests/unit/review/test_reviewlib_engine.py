"""A review of real diffs against a graph folded from a real extraction and git history."""

from __future__ import annotations

from pathlib import Path

import pytest
from reviewrepo import PAY, REPO, TS, ShopRepo, shop_repo  # type: ignore[import-not-found]

from codememory.review import InvalidDiffError, Limits, Review, review


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> ShopRepo:
    repo = shop_repo(tmp_path_factory.mktemp("review") / "shop")
    repo.index()
    repo.remember("m-pay", "Refunds go through the ledger service, never the card", ("shop/pay.py",))
    repo.remember("m-settle", "`settle` must refuse refunds: the ledger pays them back")
    return repo


def _edit(shop: ShopRepo, path: str, old: str, new: str) -> str:
    """The diff of one edit of the work tree (undone afterwards, so tests stay independent)."""
    file = Path(shop.root / path)
    before = file.read_text()
    assert old in before
    file.write_text(before.replace(old, new))
    try:
        return shop.git("diff", "--unified=0")
    finally:
        file.write_text(before)


def _review(shop: ShopRepo, diff: str, **kw: object) -> Review:
    return review(shop.graph, REPO, diff, now=shop.clock, **kw)  # type: ignore[arg-type]


def test_changed_lines_name_the_innermost_symbols_in_every_language(shop: ShopRepo) -> None:
    pay = _review(shop, _edit(shop, "shop/pay.py", "round(amount, 3)", "round(amount, 4)"))
    assert [(s.qualname, s.kind, s.signature_changed) for s in pay.changed] == [
        ("shop.pay.Gateway.charge", "method", False)  # the method, not its class
    ]
    web = _review(shop, _edit(shop, "web/render.ts", 'return "shop";', 'return "Shop";'))
    assert [(s.name, s.path) for s in web.changed] == [("header", "web/render.ts")]
    assert web.files[0].indexed and web.files[0].status == "modified"


def test_dependents_direct_and_transitive_with_distance(shop: ShopRepo) -> None:
    found = _review(shop, _edit(shop, "shop/pay.py", "return amount > 0", "return amount >= 0"))
    assert [s.qualname for s in found.changed] == ["shop.pay.validate"]
    by_name = {d.name: d for d in found.dependents}
    assert (by_name["shop.pay.settle"].distance, by_name["shop.pay.settle"].edge) == (1, "calls")
    assert by_name["shop.pay.Gateway.charge"].via == "shop.pay.validate"
    assert by_name["shop.api.checkout"].distance == 2  # checkout -> settle -> validate
    assert by_name["tests.test_pay.test_settle"].distance == 2
    assert by_name["shop/api.py"].edge == "imports" and by_name["shop/api.py"].distance == 1
    shallow = _review(
        shop, _edit(shop, "shop/pay.py", "return amount > 0", "return 1"), limits=Limits(depth=1)
    )
    assert {d.distance for d in shallow.dependents} == {1}


def test_risk_has_its_parts_and_tests_reaching_the_change_lower_it(shop: ShopRepo) -> None:
    settle = _review(shop, _edit(shop, "shop/pay.py", "    return amount\n", "    return -amount\n"))
    header = _review(shop, _edit(shop, "web/render.ts", 'return "shop";', 'return "Shop";'))
    parts = {p.name: p for p in settle.risk.parts}
    assert set(parts) == {"centrality", "fan_in", "churn", "fix_ratio", "untested"}
    assert parts["untested"].value == 0.0  # test_settle calls settle
    assert {p.name: p for p in header.risk.parts}["untested"].value == 1.0
    assert parts["fan_in"].value > 0 and "direct dependents" in parts["fan_in"].detail
    assert 0 <= settle.risk.score <= 1 and settle.risk.level in ("low", "medium", "high")


def test_missing_ranks_callers_of_a_new_signature_co_changes_tests_and_the_changelog(shop: ShopRepo) -> None:
    found = _review(shop, _edit(shop, "shop/pay.py", "def settle(amount):", "def settle(amount, currency):"))
    assert [s.signature_changed for s in found.changed] == [True]
    missing = {m.path: m for m in found.missing}
    api = missing["shop/api.py"]
    assert api.symbol == "shop.api.checkout"
    assert (
        "changed together with shop/pay.py" in api.reason
        and "`shop.pay.settle`, which has a new" in api.reason
    )
    assert "tests/test_pay.py" in missing and "CHANGELOG.md" in missing
    assert "shop/pay.py" not in missing  # the diff's own file
    assert [m.score for m in found.missing] == sorted((m.score for m in found.missing), reverse=True)
    with_test = _review(
        shop,
        _edit(shop, "shop/pay.py", "def settle(amount):", "def settle(amount, currency):")
        + _edit(shop, "tests/test_pay.py", "settle(3) == 3", "settle(3, 'EUR') == 3"),
    )
    assert "tests/test_pay.py" not in {m.path for m in with_test.missing}


def test_memories_linked_to_the_changed_code_suspect_when_the_diff_rewrites_it(shop: ShopRepo) -> None:
    found = _review(shop, _edit(shop, "shop/pay.py", "def settle(amount):", "def settle(amount, currency):"))
    memories = {m.memory_id: m for m in found.memories}
    assert set(memories) == {"m-pay", "m-settle"}
    assert memories["m-settle"].about == ("shop.pay.settle",)
    assert (
        memories["m-settle"].suspect
        and "signature of `shop.pay.settle`" in memories["m-settle"].suspect_reason
    )
    assert found.memories[0].memory_id == "m-settle"  # about a changed symbol: before file-level ones
    quiet = _review(shop, _edit(shop, "web/render.ts", 'return "shop";', 'return "Shop";'))
    assert quiet.memories == ()


def test_history_lists_the_documenting_commit_above_a_later_misleading_one(shop: ShopRepo) -> None:
    found = _review(shop, _edit(shop, "shop/pay.py", "f'refund:{amount}'", "amount"))
    subjects = [h.subject for h in found.history]
    documented = subjects.index(
        "pay: settle refuses non-positive amounts because refunds must go through the ledger"
    )
    assert documented == 0 and "tidy" in subjects  # blame would show "tidy" only
    assert "gives a reason" in found.history[0].reason and found.history[0].symbols == ("shop.pay.settle",)
    tidy = found.history[subjects.index("tidy")]
    assert "latest change" in tidy.reason


def test_a_range_is_located_on_its_new_side(shop: ShopRepo) -> None:
    diff = shop.git("diff", "--unified=0", "HEAD~1..HEAD")  # "tidy": the graph holds HEAD
    found = _review(shop, diff, side="new")
    assert "shop.pay.settle" in {s.qualname for s in found.changed}
    old_side = _review(shop, diff)
    assert {f.path for f in found.files} == {f.path for f in old_side.files} == {"shop/api.py", "shop/pay.py"}


def test_empty_unknown_and_bad_input(shop: ShopRepo) -> None:
    empty = _review(shop, "")
    assert (empty.files, empty.changed, empty.missing, empty.history) == ((), (), (), ())
    new_file = "--- /dev/null\n+++ b/shop/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
    added = _review(shop, new_file)
    assert [(f.path, f.status, f.indexed) for f in added.files] == [("shop/new.py", "added", False)]
    with pytest.raises(InvalidDiffError, match="repository"):
        review(shop.graph, " ", new_file)
    with pytest.raises(InvalidDiffError, match="depth"):
        Limits(depth=0)
    assert PAY and TS  # the sources the diffs above edit
