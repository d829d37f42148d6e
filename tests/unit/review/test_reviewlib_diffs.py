"""Unified diffs into files and changed line ranges, on the old side or the new side."""

from __future__ import annotations

import pytest

from codememory.review import FileDiff, InvalidDiffError, parse_diff

DIFF = """diff --git a/shop/pay.py b/shop/pay.py
--- a/shop/pay.py
+++ b/shop/pay.py
@@ -4,2 +4,3 @@ def validate(amount):
-    if amount <= 0:
-        return
+    if amount < 0:
+        raise
+    log()
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
-export const a = 1;
+export const a = 2;
"""

CONTEXT = """--- a/c.py
+++ b/c.py
@@ -10,7 +10,8 @@ def f():
 a
 b
 c
--- a SQL comment removed
+--- a SQL comment added
+x
 e
 f
 g
"""


def test_files_statuses_and_old_side_ranges() -> None:
    files = parse_diff(DIFF)
    assert [(f.path, f.new_path, f.status) for f in files] == [
        ("shop/pay.py", "shop/pay.py", "modified"),
        ("new.py", "new.py", "added"),
        ("old.py", "old.py", "deleted"),
        ("web/view.ts", "web/render.ts", "renamed"),
    ]
    assert files[0].ranges == [(4, 5), (20, 20)]  # a pure insertion sits at the line it follows
    assert files[0].removed == {4, 5} and (files[0].added, files[0].deleted) == (4, 2)
    assert files[2].ranges == [(1, 3)]  # a hunk without a body: its header's old range
    assert files[3].ranges == [(1, 1)]
    assert not files[1].in_graph and files[2].whole and files[0].in_graph


def test_context_lines_are_not_changes_and_a_removed_dash_line_is_a_body_line() -> None:
    [change] = parse_diff(CONTEXT)
    assert change.path == "c.py"
    assert change.ranges == [(13, 13)] and change.removed == {13}
    assert not change.touches(10, 12) and not change.touches(14, 16)


def test_new_side_reads_the_diff_reversed() -> None:
    files = parse_diff(DIFF, side="new")
    assert [(f.path, f.status, f.side) for f in files][:3] == [
        ("shop/pay.py", "modified", "new"),
        ("new.py", "added", "new"),
        ("old.py", "deleted", "new"),
    ]
    assert files[0].ranges == [(4, 6), (22, 22)] and files[0].removed == {4, 5, 6, 22}
    assert files[1].in_graph and files[1].whole and not files[2].in_graph
    assert files[3].path == "web/render.ts"


def test_touches_overlapping_spans_only() -> None:
    change = FileDiff("a.py", "a.py", ranges=[(10, 12)])
    assert change.touches(1, 10) and change.touches(12, 30) and change.touches(11, 11)
    assert not change.touches(1, 9) and not change.touches(13, 20)


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(InvalidDiffError, match="review at most"):
        parse_diff("x" * 4_000_001)
    with pytest.raises(InvalidDiffError, match="side must be"):
        parse_diff(DIFF, side="middle")
    assert parse_diff("nothing here") == []


HEADERS_ONLY = """diff --git a/docs/img/logo.png b/docs/img/logo.png
index ba127f6..4107040 100644
Binary files a/docs/img/logo.png and b/docs/img/logo.png differ
diff --git a/docs/old name.rst b/docs/new name.md
similarity index 100%
rename from docs/old name.rst
rename to docs/new name.md
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/pkg/empty.py b/pkg/empty.py
new file mode 100644
index 0000000..e69de29
diff --git a/docs/gone.png b/docs/gone.png
deleted file mode 100644
index a887450..0000000
Binary files a/docs/gone.png and /dev/null differ
diff --git a/a.py b/a.py
index 1..2 100644
--- a/a.py
+++ b/a.py
@@ -3 +3 @@
-x = 1
+x = 2
"""


def test_files_git_names_only_in_its_headers_are_part_of_the_diff() -> None:
    files = parse_diff(HEADERS_ONLY)
    assert [(f.path, f.new_path, f.status) for f in files] == [
        ("docs/img/logo.png", "docs/img/logo.png", "modified"),  # binary: no hunks, still changed
        ("docs/old name.rst", "docs/new name.md", "renamed"),  # pure rename, paths with spaces
        ("run.sh", "run.sh", "modified"),  # mode change
        ("pkg/empty.py", "pkg/empty.py", "added"),  # empty new file
        ("docs/gone.png", "docs/gone.png", "deleted"),  # deleted binary
        ("a.py", "a.py", "modified"),  # the ---/+++ pair does not add the file twice
    ]
    assert [f.ranges for f in files] == [[], [], [], [], [], [(3, 3)]]
    assert files[4].whole and not files[3].in_graph


def test_git_headers_read_reversed_on_the_new_side() -> None:
    files = parse_diff(HEADERS_ONLY, side="new")
    assert [(f.path, f.new_path, f.status) for f in files] == [
        ("docs/img/logo.png", "docs/img/logo.png", "modified"),
        ("docs/new name.md", "docs/old name.rst", "renamed"),
        ("run.sh", "run.sh", "modified"),
        ("pkg/empty.py", "pkg/empty.py", "added"),
        ("docs/gone.png", "docs/gone.png", "deleted"),
        ("a.py", "a.py", "modified"),
    ]
    assert files[3].in_graph and not files[4].in_graph and files[5].ranges == [(3, 3)]


def test_plain_diff_binary_line_and_quoted_git_paths() -> None:
    files = parse_diff('Binary files a/x.bin and b/x.bin differ\ndiff --git "a/q b/x.py" "b/q.py"\n')
    assert [(f.path, f.new_path, f.status) for f in files] == [
        ("x.bin", "x.bin", "modified"),
        ("q b/x.py", "q.py", "renamed"),
    ]
