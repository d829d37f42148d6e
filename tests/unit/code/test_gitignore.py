"""gitignore(5) rules: anchoring, directories only, negation, wildcards, ``**``, nesting."""

from __future__ import annotations

from codememory.code.gitignore import IgnoreFile, Rule, is_ignored, parse_rule


def _layer(base: str, *lines: str) -> IgnoreFile:
    rules: list[Rule] = [rule for line in lines if (rule := parse_rule(line)) is not None]
    return IgnoreFile(base, tuple(rules))


def test_comments_and_blanks_are_not_rules() -> None:
    assert parse_rule("# comment") is None
    assert parse_rule("   ") is None
    assert parse_rule("\\#file") is not None


def test_unanchored_name_matches_at_any_depth() -> None:
    layers = [_layer("", "*.pyc", "build")]
    assert is_ignored(layers, "a.pyc", False)
    assert is_ignored(layers, "x/y/a.pyc", False)
    assert is_ignored(layers, "x/build", True)
    assert is_ignored(layers, "build", False)
    assert not is_ignored(layers, "a.py", False)
    assert not is_ignored(layers, "builder", True)


def test_anchored_patterns_match_from_their_directory_only() -> None:
    layers = [_layer("", "/dist", "docs/_build")]
    assert is_ignored(layers, "dist", True)
    assert not is_ignored(layers, "pkg/dist", True)
    assert is_ignored(layers, "docs/_build", True)
    assert not is_ignored(layers, "x/docs/_build", True)


def test_directory_only_patterns_skip_files() -> None:
    layers = [_layer("", "logs/")]
    assert is_ignored(layers, "logs", True)
    assert is_ignored(layers, "a/logs", True)
    assert not is_ignored(layers, "logs", False)


def test_negation_and_last_match_wins() -> None:
    layers = [_layer("", "*.log", "!keep.log")]
    assert is_ignored(layers, "a.log", False)
    assert not is_ignored(layers, "keep.log", False)
    assert not is_ignored(layers, "sub/keep.log", False)


def test_double_star() -> None:
    layers = [_layer("", "**/gen/*.ts", "cache/**", "a/**/z.txt")]
    assert is_ignored(layers, "gen/x.ts", False)
    assert is_ignored(layers, "p/q/gen/x.ts", False)
    assert not is_ignored(layers, "gen/sub/x.ts", False)
    assert is_ignored(layers, "cache/deep/file", False)
    assert not is_ignored(layers, "cache", True)
    assert is_ignored(layers, "a/z.txt", False)
    assert is_ignored(layers, "a/b/c/z.txt", False)


def test_wildcards_do_not_cross_slashes() -> None:
    layers = [_layer("", "src/*.js", "file?.txt", "[ab]*.md", "[!c]x")]
    assert is_ignored(layers, "src/a.js", False)
    assert not is_ignored(layers, "src/lib/a.js", False)
    assert is_ignored(layers, "file1.txt", False)
    assert not is_ignored(layers, "file10.txt", False)
    assert is_ignored(layers, "a1.md", False)
    assert not is_ignored(layers, "c1.md", False)
    assert is_ignored(layers, "dx", False)
    assert not is_ignored(layers, "cx", False)


def test_nested_files_apply_below_their_directory_and_win() -> None:
    layers = [_layer("", "*.tmp"), _layer("sub", "!keep.tmp", "local")]
    assert is_ignored(layers, "sub/other.tmp", False)
    assert not is_ignored(layers, "sub/keep.tmp", False)
    assert is_ignored(layers, "keep.tmp", False)  # the nested rule does not reach up
    assert is_ignored(layers, "sub/x/local", False)
    assert not is_ignored(layers, "local", False)
