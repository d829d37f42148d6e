"""parse_log on hand-written git output: hunks counted, not guessed; headers and quoting."""

from __future__ import annotations

from codememory.githistory.patch import COMMIT_MARK, header_path, parse_log, unquote


def _commit(sha: str, parents: str = "", subject: str = "msg") -> bytes:
    return COMMIT_MARK + b"\x00".join(
        [sha.encode(), parents.encode(), b"Bob", b"1700000000", subject.encode()]
    )


def test_hunk_bodies_never_read_as_headers() -> None:
    lines = [
        _commit("a" * 40, "b" * 40),
        b"",
        b"diff --git a/x.txt b/x.txt",
        b"index 1..2 100644",
        b"--- a/x.txt",
        b"+++ b/x.txt",
        b"@@ -2,2 +2 @@",
        b"--- a/evil",
        b"-diff --git a/evil b/evil",
        b"++++ b/evil",
        b"\\ No newline at end of file",
        b"@@ -9 +8,0 @@",
        b"-gone",
    ]
    (commit,) = parse_log(lines)
    assert commit.parents == ("b" * 40,)
    assert commit.authored_at == 1_700_000_000
    (change,) = commit.files
    assert (change.path, change.status, change.added, change.deleted) == ("x.txt", "modified", 1, 3)
    assert change.ranges == [(2, 2), (8, 8)]


def test_renames_new_and_deleted_files_across_commits() -> None:
    lines = [
        _commit("1" * 40, subject="first"),
        b"diff --git a/old name.py b/new name.py",
        b"similarity index 100%",
        b"rename from old name.py",
        b"rename to new name.py",
        b"diff --git a/bin.dat b/bin.dat",
        b"new file mode 100644",
        b"Binary files /dev/null and b/bin.dat differ",
        _commit("2" * 40, "1" * 40, subject="second"),
        b"diff --git a/gone.py b/gone.py",
        b"deleted file mode 100644",
        b"--- a/gone.py",
        b"+++ /dev/null",
        b"@@ -1,2 +0,0 @@",
        b"-a",
        b"-b",
        _commit("3" * 40, "2" * 40, subject="empty"),
    ]
    first, second, empty = parse_log(lines)
    renamed, binary = first.files
    assert (renamed.path, renamed.status, renamed.old_path) == ("new name.py", "renamed", "old name.py")
    assert (binary.path, binary.status, binary.added) == ("bin.dat", "added", 0)
    (gone,) = second.files
    assert (gone.path, gone.status, gone.deleted) == ("gone.py", "deleted", 2)
    assert (empty.subject, empty.files) == ("empty", [])


def test_quoted_paths() -> None:
    assert unquote('"tab\\there"') == "tab\there"
    assert unquote('"caf\\303\\251.py"') == "café.py"
    assert unquote("plain.py") == "plain.py"
    assert header_path('"a/x\\ty" "b/x\\ty"') == "x\ty"
    assert header_path("a/same b/file b/same b/file") == "same b/file"
