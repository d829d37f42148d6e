"""Writing a benchmark's section into benchmarks/RESULTS.md, and the small statistics every script uses.

Each script owns one section between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` and writes
only there: a run's figures, stamped with the date, the commit and the command that produced them, go
on top, and what the section held before stays below them (earlier runs and the dated analyses written
beside them), so a rerun adds to a section's history instead of erasing it. A run that writes its
section again (after each size, or before a part that may fail) replaces its own figures only.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
T = TypeVar("T")
_EARLIER: dict[tuple[Path, str], str] = {}  # a section as it was before this process first wrote it


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values)


def in_turn(items: Sequence[T], turn: int) -> list[T]:
    """``items`` in order on even turns, reversed on odd ones (A B, B A, ...): the first of a pair ran
    faster in both orders on this machine (bench_replay_serving, 2026-12-04: by ~6% at a million
    events), so a fixed order favours one side."""
    return list(items) if turn % 2 == 0 else list(reversed(items))


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_section(name: str, title: str, body: str, results: Path = RESULTS) -> None:
    """The run's ``body`` on top of section ``name`` of ``results`` (created at the end if missing),
    under ``title``; below it, the section as it was before this process first wrote it, without its
    old title line."""
    stamp = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit()}, `{' '.join(['python', *sys.argv])}`"
    text = (
        results.read_text()
        if results.is_file()
        else "# Benchmark results\n\nMedians unless stated; ratios against a baseline of the same run.\n"
    )
    pattern = re.compile(rf"<!-- {name}:start -->\s*(.*?)<!-- {name}:end -->", re.S)
    found = pattern.search(text)
    if (results, name) not in _EARLIER:
        _EARLIER[results, name] = re.sub(r"\A## [^\n]*\n", "", found.group(1)).strip() if found else ""
    earlier = _EARLIER[results, name]
    this_run = f"## {title}\n\n{stamp}\n\n{body.strip()}"
    kept = f"\n\n{earlier}" if earlier else ""
    section = f"<!-- {name}:start -->\n{this_run}{kept}\n<!-- {name}:end -->"
    text = pattern.sub(lambda _: section, text) if found else f"{text.rstrip()}\n\n{section}\n"
    results.write_text(text)
    print(this_run)
