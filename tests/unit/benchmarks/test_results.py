"""The benchmarks' shared helpers (``benchmarks/results.py``): a pair's two sides take turns at running
first, and a run's section keeps what earlier runs wrote."""

from __future__ import annotations

from pathlib import Path

from benchmodules import load  # type: ignore[import-not-found]

results = load("results")


def test_every_other_turn_runs_the_sides_in_the_other_order() -> None:
    sides = ("old", "new", "variant")
    orders = [results.in_turn(sides, turn) for turn in range(4)]
    assert orders == [list(sides), list(reversed(sides))] * 2
    firsts = [order[0] for order in orders]
    assert firsts.count("old") == firsts.count("variant") == 2
    assert results.in_turn((), 3) == []


def test_a_run_goes_on_top_of_its_section_and_keeps_what_was_there(tmp_path: Path) -> None:
    results_md = tmp_path / "RESULTS.md"
    results_md.write_text(
        "# Benchmark results\n\n<!-- other:start -->\n## Other\n\nuntouched\n<!-- other:end -->\n\n"
        "<!-- rate:start -->\n## Old title\n\n**Yesterday, by hand:** 900/s.\n<!-- rate:end -->\n"
    )
    results.write_section("rate", "Import rate", "| a table | 900/s |", results=results_md)
    results.write_section("rate", "Import rate", "| a table | 1,000/s |", results=results_md)  # same run
    results._EARLIER.clear()  # as a new process: the next run
    results.write_section("rate", "Import rate", "| another | 1,100/s |", results=results_md)
    text = results_md.read_text()
    section = text[text.index("<!-- rate:start -->") : text.index("<!-- rate:end -->")]
    assert section.count("## ") == 1 and "## Import rate" in section and "Old title" not in section
    order = [section.index(s) for s in ("1,100/s", "1,000/s", "**Yesterday, by hand:** 900/s.")]
    assert order == sorted(order)  # newest first, nothing dropped
    assert "| a table | 900/s |" not in section  # a run's second write replaced its first
    assert "<!-- other:start -->\n## Other\n\nuntouched\n<!-- other:end -->" in text
    results.write_section("new", "New", "first", results=results_md)  # a section not there yet: at the end
    assert results_md.read_text().rstrip().endswith("first\n<!-- new:end -->")
