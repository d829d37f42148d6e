"""The git subprocesses the history reader runs, and nothing else.

Why it exists: reading history must be fast on repositories with thousands of commits, so the
reader never starts one process per commit. It runs one ``git log`` whose output is consumed as a
stream, and one long-lived ``git cat-file --batch`` that answers "content of <rev>:<path>" requests
over a pipe. Keeping process handling here leaves the patch parsing pure and testable.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from codememory.githistory.errors import GitCommandError, NotAGitRepositoryError, UnknownRevisionError

_BASE = ["git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "color.ui=false"]


def git_dir_of(root: Path) -> Path:
    """The git directory for ``root``; raises ``NotAGitRepositoryError`` when there is none."""
    if not root.exists():
        raise NotAGitRepositoryError(root)
    done = subprocess.run(
        [*_BASE, "rev-parse", "--absolute-git-dir"], cwd=root, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise NotAGitRepositoryError(root)
    return Path(done.stdout.strip())


def run_git(root: Path, args: list[str]) -> str:
    """Run a short git command in ``root`` and return its stdout (text)."""
    git_dir_of(root)
    done = subprocess.run([*_BASE, *args], cwd=root, capture_output=True, check=False)
    if done.returncode != 0:
        raise GitCommandError(args, done.returncode, done.stderr.decode("utf-8", "replace"))
    return done.stdout.decode("utf-8", "replace")


def resolve(root: Path, revision: str) -> str:
    """Full sha of ``revision``; raises ``UnknownRevisionError`` when it names no commit."""
    git_dir_of(root)
    done = subprocess.run(
        [*_BASE, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise UnknownRevisionError(revision)
    return done.stdout.strip()


def stream_lines(root: Path, args: list[str]) -> Iterator[bytes]:
    """Yield stdout lines (without the newline) of a long git command as it produces them.

    stderr goes to a temporary file, not a pipe: git may warn at length (rename limits) and a full
    stderr pipe nobody reads would stall the stream.
    """
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [*_BASE, *args], cwd=root, stdout=subprocess.PIPE, stderr=errors, bufsize=1 << 16
        )
        assert proc.stdout is not None
        finished = False
        try:
            for line in proc.stdout:
                yield line[:-1] if line.endswith(b"\n") else line
            finished = True
        finally:
            if not finished:
                proc.kill()
            proc.stdout.close()
            code = proc.wait()
        if code != 0:
            errors.seek(0)
            raise GitCommandError(args, code, errors.read().decode("utf-8", "replace"))


class BlobReader:
    """One ``git cat-file --batch`` process answering content requests in order.

    Use as a context manager; ``read(rev, path)`` returns the bytes of ``path`` at ``rev`` or
    ``None`` when it does not exist there (deleted, or not a blob).
    """

    def __init__(self, root: Path) -> None:
        git_dir_of(root)
        self._proc = subprocess.Popen(
            [*_BASE, "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, rev: str, path: str) -> bytes | None:
        found = self.read_object(rev, path)
        return None if found is None else found[1]

    def read_object(self, rev: str, path: str) -> tuple[str, bytes] | None:
        """``(blob id, content)`` of ``path`` at ``rev``, or ``None``."""
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None
        if "\n" in path:
            return None
        stdin.write(f"{rev}:{path}\n".encode())
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            return None  # "<request> missing" or "ambiguous"
        size = int(header[2])
        data = stdout.read(size)
        stdout.read(1)  # the newline after every object
        return (header[0].decode(), data) if header[1] == b"blob" else None

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._proc.wait()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
