"""Parse the streamed output of ``git log -p -U0`` into raw commits, one at a time.

Why it exists: the reader runs a single ``git log`` over the whole history and must turn its
output into commits without holding it all in memory, and without being fooled by file contents.
This module is pure (it only sees lines), so every tricky case (renames, binary files, a deleted
line that itself starts with ``--``, quoted paths) is unit-testable without git.

Hunk bodies are consumed by counting the line totals in each ``@@`` header, so nothing inside a
hunk is ever mistaken for a header. Only new-side ranges are kept: they are what symbols are
matched against. A pure deletion (``+c,0``) is recorded at its position, line ``max(c, 1)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

COMMIT_MARK = b"\x1e\x1fcommit\x00"
LOG_FORMAT = "%x1e%x1fcommit%x00%H%x00%P%x00%an%x00%at%x00%s"

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"t": "\t", "n": "\n", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}


@dataclass(slots=True)
class RawFile:
    """One file's change in one commit, as parsed (mutable while the parser fills it)."""

    path: str
    status: str = "modified"
    old_path: str = ""
    added: int = 0
    deleted: int = 0
    ranges: list[tuple[int, int]] = field(default_factory=list)


@dataclass(slots=True)
class RawCommit:
    """One commit's header fields and parsed file changes."""

    sha: str
    parents: tuple[str, ...]
    author: str
    authored_at: float
    subject: str
    files: list[RawFile] = field(default_factory=list)


def unquote(text: str) -> str:
    """Undo git's C-style path quoting (``"a\\tb"``, octal bytes); plain paths pass through."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out += char.encode()
            i += 1
        elif body[i + 1] in "01234567" and re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += _ESCAPES.get(body[i + 1], body[i + 1]).encode()
            i += 2
    return out.decode("utf-8", "replace")


def _strip_prefix(path: str, prefix: str) -> str:
    path = unquote(path)
    return path[len(prefix) :] if path.startswith(prefix) else path


def header_path(rest: str) -> str:
    """The (new) path named by ``diff --git <rest>``; renames are corrected by later lines."""
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        return _strip_prefix(rest[end + 2 :], "b/") if end > 0 else rest
    size = (len(rest) - 5) // 2
    if len(rest) == 2 * size + 5 and rest[2 + size :] == " b/" + rest[2 : 2 + size]:
        return rest[2 : 2 + size]
    cut = rest.rfind(" b/")
    return _strip_prefix(rest[cut + 1 :], "b/") if cut > 0 else rest


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _header(line: bytes) -> RawCommit:
    parts = line[len(COMMIT_MARK) :].split(b"\x00")
    sha, parents, author, stamp, subject = (parts + [b""] * 5)[:5]
    return RawCommit(
        sha=_text(sha),
        parents=tuple(_text(parents).split()),
        author=_text(author),
        authored_at=float(stamp or 0),
        subject=_text(subject),
    )


def _file_header(current: RawFile, line: bytes) -> None:
    text = _text(line)
    if text.startswith(("--- ", "+++ ")) and text.endswith("\t"):
        text = text[:-1]  # git ends these lines with a tab when the path holds a space
    if text.startswith("new file mode"):
        current.status = "added"
    elif text.startswith("deleted file mode"):
        current.status = "deleted"
    elif text.startswith("rename from "):
        current.status, current.old_path = "renamed", unquote(text[len("rename from ") :])
    elif text.startswith("rename to "):
        current.path = unquote(text[len("rename to ") :])
    elif text.startswith("--- ") and current.status == "deleted" and text[4:] != "/dev/null":
        current.path = _strip_prefix(text[4:], "a/")
    elif text.startswith("+++ ") and text[4:] != "/dev/null":
        current.path = _strip_prefix(text[4:], "b/")


def parse_log(lines: Iterable[bytes]) -> Iterator[RawCommit]:
    """Turn ``git log --format=LOG_FORMAT -p -U0`` output lines into commits, oldest first as given."""
    commit: RawCommit | None = None
    current: RawFile | None = None
    old_left = new_left = 0
    for line in lines:
        if old_left > 0 or new_left > 0:
            if line.startswith(b"-"):
                old_left -= 1
            elif line.startswith(b"+"):
                new_left -= 1
            elif not line.startswith(b"\\"):
                old_left = new_left = 0  # malformed hunk: fall through to header handling
            if old_left > 0 or new_left > 0 or line.startswith((b"-", b"+", b"\\")):
                continue
        if line.startswith(COMMIT_MARK):
            if commit is not None:
                yield commit
            commit, current = _header(line), None
        elif commit is None:
            continue
        elif line.startswith(b"diff --git "):
            current = RawFile(path=header_path(_text(line[len(b"diff --git ") :])))
            commit.files.append(current)
        elif current is None:
            continue
        elif line.startswith(b"@@ "):
            match = _HUNK.match(line)
            if match is None:
                continue
            old_left = int(match.group(2) or b"1")
            start, new_left = int(match.group(3)), int(match.group(4) or b"1")
            current.deleted += old_left
            current.added += new_left
            end = start + new_left - 1 if new_left else start
            current.ranges.append((max(start, 1), max(end, 1)))
        elif not line.startswith(b"\\"):
            _file_header(current, line)
    if commit is not None:
        yield commit
