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
