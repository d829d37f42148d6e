"""Unified diffs into files and old-side line ranges; the work tree's own diff through git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codememory.mcp.diffs import FileDiff, check_size, parse_diff, working_diff
from codememory.mcp.errors import InvalidArgumentError

DIFF = """diff --git a/shop/pay.py b/shop/pay.py
--- a/shop/pay.py
+++ b/shop/pay.py
@@ -4,2 +4,3 @@ def validate(amount):
-    if amount <= 0:
+    if amount < 0:
+        raise
@@ -20,0 +22 @@ class Gateway:
+        log()
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+x = 1
--- a/old.py
+++ /dev/null
@@ -1,3 +0,0 @@
--- a/web/view.ts
+++ b/web/render.ts
@@ -1 +1 @@
"""


def test_parse_modified_added_deleted_renamed() -> None:
    files = parse_diff(DIFF)
    assert [(f.path, f.new_path, f.status) for f in files] == [
        ("shop/pay.py", "shop/pay.py", "modified"),
        ("new.py", "new.py", "added"),
        ("old.py", "old.py", "deleted"),
        ("web/view.ts", "web/render.ts", "renamed"),
    ]
    assert files[0].ranges == [(4, 5), (20, 20)]  # a pure insertion sits at the line it follows
    assert files[3].ranges == [(1, 1)]


def test_touches_overlapping_spans_only() -> None:
    change = FileDiff("a.py", "a.py", ranges=[(10, 12)])
    assert change.touches(1, 10) and change.touches(12, 30) and change.touches(11, 11)
    assert not change.touches(1, 9) and not change.touches(13, 20)


async def test_working_diff_of_a_git_tree(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    git("add", "a.py")
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "first")
    (tmp_path / "a.py").write_text("one\nTWO\nthree\n")

    files = parse_diff(await working_diff(tmp_path, "HEAD"))

    assert [(f.path, f.ranges) for f in files] == [("a.py", [(2, 2)])]
    with pytest.raises(InvalidArgumentError, match="git diff nope failed"):
        await working_diff(tmp_path, "nope")
    with pytest.raises(InvalidArgumentError, match="commit or ref"):
        await working_diff(tmp_path, "--output=/tmp/x")


def test_oversized_diff_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="review at most"):
        check_size("x" * 4_000_001)
