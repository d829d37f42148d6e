"""Unified diffs into the files and line ranges they touch, on the side the code graph knows.

The graph holds the code as it was last indexed, normally the last commit: the diff's old side. So a
hunk is located by its old start and length (a pure insertion by the line it follows), which is what
matches the symbols' recorded lines; a new file has no old side and is reported as new.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

from codememory.mcp.errors import InvalidArgumentError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_MAX_DIFF = 4_000_000  # characters: a larger diff is a mistake, not a review


@dataclass
class FileDiff:
    """One file of a diff: its path in the graph (old side), what happened, the old line ranges."""

    path: str
    new_path: str
    status: str = "modified"  # added, deleted, renamed, modified
    ranges: list[tuple[int, int]] = field(default_factory=list)

    def touches(self, start: int, end: int) -> bool:
        return any(lo <= end and start <= hi for lo, hi in self.ranges)


def _strip(name: str) -> str:
    name = name.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name[2:] if name[:2] in ("a/", "b/") else name


def parse_diff(text: str) -> list[FileDiff]:
    """The files of a unified diff (``git diff`` or ``diff -u`` output), in order."""
    files: list[FileDiff] = []
    old = ""
    for line in text.splitlines():
        if line.startswith("--- "):
            old = _strip(line[4:])
        elif line.startswith("+++ ") and old:
            new = _strip(line[4:])
            if old == "/dev/null":
                files.append(FileDiff(new, new, "added"))
            elif new == "/dev/null":
                files.append(FileDiff(old, old, "deleted"))
            else:
                files.append(FileDiff(old, new, "renamed" if old != new else "modified"))
            old = ""
        elif (match := _HUNK.match(line)) and files:
            start, count = int(match[1]), int(match[2] if match[2] is not None else 1)
            files[-1].ranges.append((start, start + count - 1) if count else (max(start, 1), max(start, 1)))
    return files


async def working_diff(project: Path, base: str) -> str:
    """``git diff <base>`` of the project's work tree (staged and unstaged), with no context lines."""
    if base.startswith("-"):
        raise InvalidArgumentError(f"base must be a commit or ref, got {base!r}")
    try:
        process = await asyncio.create_subprocess_exec(
            "git",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--unified=0",
            base,
            "--",
            cwd=project,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=30)
    except (OSError, TimeoutError) as exc:
        raise InvalidArgumentError(f"cannot run git diff in {project}: {exc}") from exc
    if process.returncode != 0:
        raise InvalidArgumentError(f"git diff {base} failed in {project}: {err.decode(errors='replace')}")
    return out.decode(errors="replace")


def check_size(text: str) -> str:
    if len(text) > _MAX_DIFF:
        raise InvalidArgumentError(f"the diff has {len(text)} characters; review at most {_MAX_DIFF}")
    return text


__all__ = ["FileDiff", "check_size", "parse_diff", "working_diff"]
