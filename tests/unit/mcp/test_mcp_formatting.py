"""Compact lines with ids first, and a page that stops at its token budget and says so."""

from __future__ import annotations

from codememory.mcp.formatting import Page, code_hit_line, commit_line, memory_line, node_line, one_line
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import memory_pb2 as pb


def test_page_stops_at_the_budget_and_counts_what_it_left_out() -> None:
    page = Page(100)
    for n in range(50):
        page.add(f"line {n} " + "x" * 40)
    text = page.render()
    assert page.lines[0].startswith("line 0") and page.omitted == 50 - len(page.lines)
    assert f"{page.omitted} more line(s) left out to stay within 100 tokens" in text
    assert len("\n".join(page.lines)) <= 100 * 4


def test_a_first_line_longer_than_the_budget_is_cut_not_dropped() -> None:
    page = Page(100)
    page.add("y" * 2000)
    assert len(page.lines[0]) == 400 and page.lines[0].endswith("…") and not page.omitted


def test_memory_line_puts_the_id_first_and_flags_suspects() -> None:
    memory = pb.Memory(
        id="m-1", text="We  round\namounts", type="decision", created_at=86400 * 365,
        scope=pb.Scope(repo="shop"), state="deprecated",
    )  # fmt: skip
    line = memory_line(memory, 0.5, suspect="shop.pay.charge changed")
    assert (
        line == "- m-1 [decision, 1971-01-01, shop, deprecated, 0.500] (SUSPECT: shop.pay.charge changed)"
        " We round amounts"
    )


def test_memory_line_shows_a_tools_memory_as_session_context_does() -> None:
    failure = pb.Memory(id="m-9", type="failure", text="Bash failed: make\nExit code 2\nerror: boom\n1 error")
    assert memory_line(failure).endswith("[failure, ?] Bash failed: make error: boom")
    ran = pb.Memory(id="m-8", type="observation", text='Ran `make` → ok\n{"command":"make"}\nbuilt')
    assert memory_line(ran).endswith("[observation, ?] Ran `make` → ok built")


def test_memory_line_names_what_consolidation_made_of_it() -> None:
    old = pb.Memory(id="m-1", text="a", state="superseded", superseded_by="m-2", superseded_at=86400 * 365)
    assert "[note, ?, superseded 1971-01-01 by m-2]" in memory_line(old)
    assert "[note, ?, merged into m-3]" in memory_line(pb.Memory(id="m-4", state="merged", merged_into="m-3"))
    assert "[note, ?, stated 3x]" in memory_line(pb.Memory(id="m-3", state="active", restated=3))
    assert "[note, ?]" in memory_line(pb.Memory(id="m-5", state="active", restated=1))


def test_nodes_commits_and_hits() -> None:
    symbol = cpb.GraphNode(
        kind="symbol", qualname="shop.pay.settle", symbol_kind="function", path="shop/pay.py",
        start_line=3, end_line=5, signature="def settle(amount)", via="calls", depth=1,
    )  # fmt: skip
    assert node_line(symbol) == (
        "- function shop.pay.settle  shop/pay.py:3-5  def settle(amount) (via calls)"
    )
    assert (
        node_line(cpb.GraphNode(kind="file", path="shop/api.py", score=0.5))
        == "- file shop/api.py score=0.500"
    )
    commit = cpb.CommitInfo(sha="a" * 40, authored_at=0, author="Dev", message="fix\nit", files=["x"] * 10)
    assert commit_line(commit, max_names=2) == "- aaaaaaaaaaaa ? Dev: fix it [files: x, x (+8 more)]"
    hit = cpb.CodeHit(qualname="a.b", kind="function", path="a.py", start_line=1, end_line=2, score=1.0)
    assert code_hit_line(hit).startswith("- 1.000 function a.b  a.py:1-2")
    assert one_line("a " * 10, 5) == "a a…"
