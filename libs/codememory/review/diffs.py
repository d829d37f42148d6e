"""Unified diffs into the files and line ranges they change, on the side the code graph knows.

Why here: the gateway's ReviewDiff, the CLI and the MCP tool all review the same text, so one parser
serves them. The graph holds the code as it was last indexed, normally the last commit: the diff's old
side. So changed lines are located on the old side: a removed line by its old number, a pure insertion
by the old line it follows. A hunk's body is read line by line, so context lines (``git diff`` shows
three around each change) never count as changed; a hunk without a body (a summary) falls back to its
header's old range. A new file has no old side and is reported as added.

``git diff`` names a file in its ``diff --git`` line and extended headers too, and for some changes
that is all it writes: a binary file ("Binary files … differ"), a pure rename ("similarity index
100%"), a mode change, an empty new file. Such a file is still part of the diff (its co-change partners
are what a review's ``missing`` list is about), so it is read from those headers, with no line ranges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codememory.review.errors import InvalidDiffError

__all__ = ["MAX_DIFF_CHARS", "FileDiff", "check_size", "parse_diff"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
_GIT = "diff --git "
_SWAPS = (  # extended header lines whose sides swap when a diff is read reversed
    ("new file mode ", "deleted file mode "),
    ("rename from ", "rename to "),
    ("copy from ", "copy to "),
    ("old mode ", "new mode "),
)
MAX_DIFF_CHARS = 4_000_000  # a larger diff is a mistake, not a review


@dataclass
class FileDiff:
    """One file of a diff: its path on the graph's side, what happened, the lines it changes there.

    ``new_path`` is the other side's path (the new one, when the graph holds the old side).

    ``ranges`` are inclusive old-side line ranges; ``removed`` the old lines deleted or replaced (a
    signature changed when its definition line is among them); ``added``/``deleted`` count lines.
    """

    path: str
    new_path: str
    status: str = "modified"  # added, deleted, renamed, modified
    ranges: list[tuple[int, int]] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)
    added: int = 0
    deleted: int = 0
    side: str = "old"  # the side ``path``, ``ranges`` and ``removed`` are on

    @property
    def in_graph(self) -> bool:
        """Whether the file exists on the side the graph recorded."""
        return self.status != ("added" if self.side == "old" else "deleted")

    @property
    def whole(self) -> bool:
        """Whether every line of the file on the graph's side changed (deleted, or added on the new side)."""
        return self.status == ("deleted" if self.side == "old" else "added")

    def touches(self, start: int, end: int) -> bool:
        return any(lo <= end and start <= hi for lo, hi in self.ranges)

    def _mark(self, line: int) -> None:
        line = max(line, 1)
        if self.ranges and self.ranges[-1][1] in (line, line - 1):
            self.ranges[-1] = (self.ranges[-1][0], max(line, self.ranges[-1][1]))
        else:
            self.ranges.append((line, line))


def _strip(name: str) -> str:
    name = name.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name[2:] if name[:2] in ("a/", "b/") else name


def _unquote(name: str) -> str:
    name = name.strip()
    return name[1:-1] if len(name) > 1 and name[0] == name[-1] == '"' else name


def _git_paths(rest: str) -> tuple[str, str]:
    """The two paths of a ``diff --git a/X b/Y`` line (``rest`` after ``diff --git``); a path with
    spaces is unambiguous when both sides are equal (a rename's own headers name both sides)."""
    if rest.startswith('"'):
        old, _, new = rest[1:].partition('" ')
        return _strip(old), _strip(new)
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[2:half] == rest[half + 3 :]:
        return _strip(rest[:half]), _strip(rest[half + 1 :])
    old, sep, new = rest.partition(" b/")
    return _strip(old), _strip("b/" + new) if sep else _strip(old)


def _swapped(line: str) -> str | None:
    """An extended header line with its sides swapped ("new file mode" for "deleted file mode" …)."""
    for one, other in _SWAPS:
        for this, that in ((one, other), (other, one)):
            if line.startswith(this):
                return that + line[len(this) :]
    return None


def _file_header(lines: list[str], i: int) -> bool:
    """A ``---``/``+++`` pair starts a file even where a body-less hunk left lines unread."""
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def check_size(text: str) -> str:
    if len(text) > MAX_DIFF_CHARS:
        raise InvalidDiffError(f"the diff has {len(text)} characters; review at most {MAX_DIFF_CHARS}")
    return text


def parse_diff(text: str, side: str = "old") -> list[FileDiff]:
    """The files of a unified diff (``git diff`` or ``diff -u`` output), in order.

    On ``side="new"`` (the graph recorded the diff's result, as after ``git diff A..HEAD``), lines and
    paths are the new side's: the diff is read reversed, so an added line counts as a changed line.
    """
    if side not in ("old", "new"):
        raise InvalidDiffError(f"side must be old or new, got {side!r}")
    files = _parse(_reversed(check_size(text)) if side == "new" else check_size(text))
    if side == "new":
        flip = {"added": "deleted", "deleted": "added"}
        for f in files:
            f.status, f.side = flip.get(f.status, f.status), "new"
            f.added, f.deleted = f.deleted, f.added
    return files


def _reversed(text: str) -> str:
    """The diff that undoes ``text``: sides swapped in file and hunk headers, ``+`` and ``-`` swapped."""
    out: list[str] = []
    lines = text.splitlines()
    pending: str | None = None
    run: list[str] = []  # the current change's body lines, reversed
    for i, line in enumerate(lines):
        if _file_header(lines, i):
            pending = line[4:]
            out.append("--- " + lines[i + 1][4:])
        elif pending is not None and line.startswith("+++ "):
            out.append("+++ " + pending)
            pending = None
        elif line.startswith(_GIT):
            old, new = _git_paths(line[len(_GIT) :])
            out.append(f"{_GIT}a/{new} b/{old}")
        elif (binary := _BINARY.match(line)) is not None:
            out.append(f"Binary files {binary[2]} and {binary[1]} differ")
        elif (swapped := _swapped(line)) is not None:
            out.append(swapped)
        elif match := _HUNK.match(line):
            old = match[1] + ("," + match[2] if match[2] is not None else "")
            new = match[3] + ("," + match[4] if match[4] is not None else "")
            out.append(f"@@ -{new} +{old} @@")
        elif line[:1] in ("+", "-"):
            run.append(("-" if line[0] == "+" else "+") + line[1:])
            continue
        else:
            out.append(line)
        if run:  # git writes a change's removed lines before its added ones: keep that order
            out[-1:-1] = sorted(run, key=lambda r: r[0] != "-")
            run = []
    return "\n".join(out + sorted(run, key=lambda r: r[0] != "-"))


def _parse(text: str) -> list[FileDiff]:
    files: list[FileDiff] = []
    old_name = ""
    old_line = old_left = new_left = 0  # the next old-side line; body lines still to read per side
    header: tuple[int, int] | None = None  # the hunk's old range until its body marks something
    opened = False  # files[-1] came from a ``diff --git`` line and its ``---``/``+++`` pair is still to come
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if (
            (old_left > 0 or new_left > 0)
            and line[:1] in (" ", "-", "+", "\\", "")
            and not _file_header(lines, i)
        ):
            change = files[-1]
            if line.startswith("-"):
                change._mark(old_line)
                change.removed.add(old_line)
                change.deleted += 1
                old_line, old_left, header = old_line + 1, old_left - 1, None
            elif line.startswith("+"):
                change._mark(old_line - 1)
                change.added += 1
                new_left, header = new_left - 1, None
            elif not line.startswith("\\"):
                old_line, old_left, new_left = old_line + 1, old_left - 1, new_left - 1
            continue
        if header is not None and files:  # a hunk header without a body: its old range changed
            files[-1].ranges.append(header)
        old_left = new_left = 0
        header = None
        if line.startswith(_GIT):
            old, new = _git_paths(line[len(_GIT) :])
            files.append(FileDiff(old, new, "renamed" if old != new else "modified"))
            opened, old_name = True, ""
        elif opened and _extended(files[-1], line):
            continue
        elif line.startswith("--- "):
            old_name = _strip(line[4:])
        elif line.startswith("+++ ") and old_name:
            new = _strip(line[4:])
            if old_name == "/dev/null":
                found = FileDiff(new, new, "added")
            elif new == "/dev/null":
                found = FileDiff(old_name, old_name, "deleted")
            else:
                found = FileDiff(old_name, new, "renamed" if old_name != new else "modified")
            if opened:  # the pair names the file its ``diff --git`` line began
                files[-1] = found
            else:
                files.append(found)
            old_name, opened = "", False
        elif (binary := _BINARY.match(line)) is not None:  # plain ``diff``'s binary files, no git header
            old, new = _strip(binary[1]), _strip(binary[2])
            status = "added" if old == "/dev/null" else "deleted" if new == "/dev/null" else "modified"
            files.append(
                FileDiff(new if status == "added" else old, old if status == "deleted" else new, status)
            )
        elif (match := _HUNK.match(line)) and files:
            opened = False
            start, count = int(match[1]), int(match[2] if match[2] is not None else 1)
            old_line, old_left = (start if count else start + 1), count
            new_left = int(match[4] if match[4] is not None else 1)
            header = (max(start, 1), max(start + count - 1, start, 1))
    if header is not None and files:
        files[-1].ranges.append(header)
    return files


def _extended(change: FileDiff, line: str) -> bool:
    """Read a ``diff --git`` extended header line into ``change``; False when ``line`` is none."""
    if line.startswith("new file mode "):
        change.status = "added"
    elif line.startswith("deleted file mode "):
        change.status = "deleted"
    elif line.startswith("rename from "):
        change.path, change.status = _unquote(line[12:]), "renamed"
    elif line.startswith("rename to "):
        change.new_path, change.status = _unquote(line[10:]), "renamed"
    elif line.startswith("copy to "):  # a copy is a new file: the graph knows only where it came from
        change.path = change.new_path = _unquote(line[8:])
        change.status = "added"
    elif not line.startswith(
        ("index ", "similarity index ", "dissimilarity index ", "old mode ", "new mode ", "copy from ")
    ):
        return _BINARY.match(line) is not None
    return True
