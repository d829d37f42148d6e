"""read_history / read_commit / head_commit against a real repository built in the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from githistory_support import Repo  # type: ignore[import-not-found]

from codememory.events import CommitRecorded
from codememory.githistory import (
    NotAGitRepositoryError,
    UnknownRevisionError,
    extractor_spans,
    head_commit,
    python_spans,
    read_commit,
    read_history,
)

APP_V1 = "import os\n\n\ndef alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"
APP_V2 = "import os\n\n\ndef alpha():\n    return 10\n\n\ndef beta():\n    return 2\n"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _build(repo: Repo) -> dict[str, str]:
    shas: dict[str, str] = {}
    repo.write("app.py", APP_V1)
    repo.write("README.md", "hello\n")
    shas["first"] = repo.commit("Initial import\n\nlong body that is not recorded")
    repo.write("app.py", APP_V2)
    shas["edit"] = repo.commit(f"Fix alpha, token {TOKEN}")
    (repo.root / "docs").mkdir()
    repo.git("mv", "README.md", "docs/README.md")
    shas["rename"] = repo.commit("Move readme")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("side.py", "x = 1\n")
    shas["side"] = repo.commit("Side work")
    repo.git("checkout", "-q", "main")
    repo.write("main.txt", "m\n")
    shas["main"] = repo.commit("Main work")
    repo.git("merge", "-q", "--no-ff", "side", "-m", "Merge side")
    shas["merge"] = repo.git("rev-parse", "HEAD")
    repo.git("rm", "-q", "main.txt")
    shas["delete"] = repo.commit("Drop main.txt")
    return shas


def _by_sha(commits: list[CommitRecorded]) -> dict[str, CommitRecorded]:
    return {c.sha: c for c in commits}


def test_history_is_oldest_first_with_header_fields(repo: Repo) -> None:
    shas = _build(repo)
    commits = list(read_history(repo.root, "demo"))
    assert commits[0].sha == shas["first"]
    assert commits[-1].sha == shas["delete"]
    assert len(commits) == 7
    first = commits[0]
    assert first.repo == "demo"
    assert first.parents == ()
    assert first.author == "Ada Lovelace"
    assert first.authored_at == pytest.approx(1_700_000_060)
    assert first.message == "Initial import"
    assert {f.path: f.status for f in first.files} == {"app.py": "added", "README.md": "added"}
    assert next(f for f in first.files if f.path == "app.py").added_lines == APP_V1.count("\n")


def test_no_email_and_secrets_redacted(repo: Repo) -> None:
    shas = _build(repo)
    edit = _by_sha(list(read_history(repo.root, "demo")))[shas["edit"]]
    assert TOKEN not in edit.message
    assert "[REDACTED:" in edit.message
    assert edit.message.startswith("Fix alpha, token ")
    assert "example.com" not in repr(edit)


def test_rename_delete_and_merge(repo: Repo) -> None:
    shas = _build(repo)
    commits = _by_sha(list(read_history(repo.root, "demo")))
    (moved,) = commits[shas["rename"]].files
    assert (moved.path, moved.status, moved.old_path) == ("docs/README.md", "renamed", "README.md")
    merge = commits[shas["merge"]]
    assert merge.parents == (shas["main"], shas["side"])
    assert [f.path for f in merge.files] == ["side.py"]  # diff against the first parent only
    (gone,) = commits[shas["delete"]].files
    assert (gone.path, gone.status, gone.deleted_lines) == ("main.txt", "deleted", 1)


def test_hunks_map_to_the_symbols_they_touch(repo: Repo) -> None:
    shas = _build(repo)
    commits = _by_sha(list(read_history(repo.root, "demo", symbols_of=python_spans)))
    (edited,) = commits[shas["edit"]].files
    assert (edited.added_lines, edited.deleted_lines) == (1, 1)
    assert edited.symbols == ("alpha",)
    first = {f.path: f.symbols for f in commits[shas["first"]].files}
    assert first == {"app.py": ("alpha", "beta"), "README.md": ()}


def test_tree_sitter_provider_gives_module_qualified_names(repo: Repo) -> None:
    shas = _build(repo)
    event = read_commit(repo.root, "demo", shas["edit"], symbols_of=extractor_spans("demo"))
    assert event.files[0].symbols == ("app.alpha",)


def test_deletion_counts_at_its_position(repo: Repo) -> None:
    repo.write("m.py", "def a():\n    x = 1\n    y = 2\n    return x\n\n\ndef b():\n    pass\n")
    repo.commit("add")
    repo.write("m.py", "def a():\n    x = 1\n    return x\n\n\ndef b():\n    pass\n")
    sha = repo.commit("drop y")
    (change,) = read_commit(repo.root, "demo", sha, symbols_of=python_spans).files
    assert (change.added_lines, change.deleted_lines, change.symbols) == (0, 1, ("a",))


def test_since_is_exclusive_and_read_commit_matches_history(repo: Repo) -> None:
    shas = _build(repo)
    later = list(read_history(repo.root, "demo", since=shas["main"]))
    assert [c.sha for c in later] == [shas["side"], shas["merge"], shas["delete"]]
    history = _by_sha(list(read_history(repo.root, "demo")))
    for sha in shas.values():
        assert read_commit(repo.root, "demo", sha) == history[sha]
    assert head_commit(repo.root) == shas["delete"]


def test_awkward_paths_survive(repo: Repo) -> None:
    repo.write("dir with space/naïve file.py", "a = 1\n")
    repo.write('odd"quote.txt', "q\n")
    sha = repo.commit("odd names")
    paths = {f.path for f in read_commit(repo.root, "demo", sha).files}
    assert paths == {"dir with space/naïve file.py", 'odd"quote.txt'}


def test_content_that_looks_like_headers_is_not_parsed_as_headers(repo: Repo) -> None:
    repo.write("notes.txt", "-- a\n++ b\ndiff --git a/x b/x\n")
    repo.commit("add")
    repo.write("notes.txt", "++ c\n")
    sha = repo.commit("edit")
    (change,) = read_commit(repo.root, "demo", sha).files
    assert (change.path, change.added_lines, change.deleted_lines) == ("notes.txt", 1, 3)


def test_typed_errors(repo: Repo, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotAGitRepositoryError):
        list(read_history(plain, "demo"))
    with pytest.raises(NotAGitRepositoryError):
        head_commit(tmp_path / "missing")
    _build(repo)
    with pytest.raises(UnknownRevisionError):
        list(read_history(repo.root, "demo", until="no-such-branch"))
    with pytest.raises(UnknownRevisionError):
        read_commit(repo.root, "demo", "0" * 40)


def test_each_blob_is_parsed_once(repo: Repo) -> None:
    calls: list[str] = []

    def spans(path: str, content: bytes) -> list[tuple[str, int, int]]:
        calls.append(path)
        return [("whole", 1, content.count(b"\n"))]

    for text in ("a\n", "b\n", "a\n"):  # the third commit reverts to the first blob
        repo.write("f.txt", text)
        repo.commit(text)
    commits = list(read_history(repo.root, "demo", symbols_of=spans))
    assert [c.files[0].symbols for c in commits] == [("whole",)] * 3
    assert calls == ["f.txt", "f.txt"]
