"""Writing a benchmark's section into benchmarks/RESULTS.md, and the small statistics every script uses.

Each script owns one section between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` and replaces
only that, stamped with the date, the commit and the command that produced it.
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


def write_section(name: str, title: str, body: str) -> None:
    stamp = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit()}, `{' '.join(['python', *sys.argv])}`"
    section = f"<!-- {name}:start -->\n## {title}\n\n{stamp}\n\n{body.strip()}\n<!-- {name}:end -->"
    text = (
        RESULTS.read_text()
        if RESULTS.is_file()
        else "# Benchmark results\n\nMedians unless stated; ratios against a baseline of the same run.\n"
    )
    pattern = re.compile(rf"<!-- {name}:start -->.*?<!-- {name}:end -->", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else f"{text.rstrip()}\n\n{section}\n"
    RESULTS.write_text(text)
    print(section)
