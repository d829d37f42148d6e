"""Edits from LOG excerpts (ingest's format), from patches, and from an agent's tool_input."""

from __future__ import annotations

from codememory.ingest.normalize.summaries import input_text
from codememory.reviews.edits import edits_from_excerpt, edits_from_input, edits_from_patch
from codememory.reviews.forgetting import Edit


def test_ingest_excerpts_round_trip_for_one_and_several_pairs() -> None:
    one = input_text("edit", {"old_string": "def a():", "new_string": "def b():"})
    assert edits_from_excerpt(one, ("m.py",)) == [Edit("m.py", "def a():", "def b():")]
    many = input_text(
        "edit",
        {"edits": [{"old_string": "x = 1", "new_string": "x = 2"}, {"old_string": "y", "new_string": "z"}]},
    )
    assert edits_from_excerpt(many, ("m.py",)) == [Edit("m.py", "x = 1", "x = 2"), Edit("m.py", "y", "z")]


def test_an_excerpt_without_a_path_or_without_a_change_gives_nothing() -> None:
    assert edits_from_excerpt("--- old\nx\n+++ new\ny", ()) == []
    assert edits_from_excerpt("--- old\nx\n+++ new\nx", ("m.py",)) == []
    assert edits_from_excerpt("", ("m.py",)) == []


def test_codex_patches_and_unified_diffs_become_hunks_per_file() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n def f(x):\n-    return x\n+    return x + 1\n"
        "*** End Patch"
    )
    assert edits_from_patch(patch) == [
        Edit("src/a.py", "def f(x):\n    return x", "def f(x):\n    return x + 1")
    ]
    diff = "--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-a := 1\n+a := 2\n"
    assert edits_from_patch(diff) == [Edit("b.go", "a := 1", "a := 2")]


def test_tool_input_of_each_agent_shape() -> None:
    assert edits_from_input({"old_string": "a", "new_string": "b"}, "/r/x.py") == [Edit("/r/x.py", "a", "b")]
    multi = {
        "edits": [{"old_string": "a", "new_string": "b"}, "junk", {"old_string": "c", "new_string": "c"}]
    }
    assert edits_from_input(multi, "x.py") == [Edit("x.py", "a", "b")]
    assert edits_from_input({"content": "whole file"}, "x.py") == []
