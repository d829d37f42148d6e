"""The git process helpers: one cat-file process for many reads, typed failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from githistory_support import Repo  # type: ignore[import-not-found]

from codememory.githistory import GitCommandError, NotAGitRepositoryError, UnknownRevisionError
from codememory.githistory.gitproc import BlobReader, resolve, run_git, stream_lines


def test_blob_reader_answers_in_order_and_reports_missing(repo: Repo) -> None:
    repo.write("a.txt", "one\n")
    first = repo.commit("one")
    repo.write("a.txt", "two\n")
    repo.write("b.bin", "\0\1\2")
    second = repo.commit("two")
    with BlobReader(repo.root) as blobs:
        assert blobs.read(first, "a.txt") == b"one\n"
        assert blobs.read(second, "a.txt") == b"two\n"
        assert blobs.read(second, "b.bin") == b"\0\1\2"
        assert blobs.read(first, "b.bin") is None
        assert blobs.read(second, "") is None  # a tree, not a blob
        assert blobs.read(second, "a.txt") == b"two\n"


def test_failures_are_typed(repo: Repo, tmp_path: Path) -> None:
    repo.commit("empty")
    with pytest.raises(UnknownRevisionError):
        resolve(repo.root, "nope")
    with pytest.raises(GitCommandError):
        run_git(repo.root, ["log", "--no-such-flag"])
    with pytest.raises(GitCommandError):
        list(stream_lines(repo.root, ["log", "--no-such-flag"]))
    with pytest.raises(NotAGitRepositoryError):
        BlobReader(tmp_path)


def test_a_stream_abandoned_part_way_stops_git_quietly(repo: Repo) -> None:
    for n in range(30):
        repo.write("f.txt", f"{n}\n")
        repo.commit(f"c{n}")
    lines = stream_lines(repo.root, ["log", "-p"])
    assert next(lines)
    lines.close()  # kills git; no error is raised for a stream the caller chose to stop
