"""The rule engine: prefix and anchored rules, look-back leads, and case folding that keeps indices."""

from __future__ import annotations

import re

from codememory.redaction.rule import LazyPattern, Rule, apply_rules, marker


def _kind(match: re.Match[str]) -> str | None:
    return None if "keep" in match.group("secret") else "thing"


def test_prefix_rule_replaces_only_the_secret_group() -> None:
    rule = Rule("thing", r"id=(?P<secret>[a-z]+)", gates=("id=",), decide=_kind)
    assert apply_rules([rule], "id=abc id=keep") == (f"id={marker('thing')} id=keep", 1)


def test_prefix_rule_skipped_without_its_gate() -> None:
    rule = Rule("thing", r"(?P<secret>zz+)", gates=("zzz",))
    assert apply_rules([rule], "zz") == ("zz", 0)


def test_bounded_prefix_rule_ignores_matches_inside_words() -> None:
    rule = Rule("thing", r"tok_[0-9]+", bounded=True)
    assert apply_rules([rule], "xtok_123 tok_456") == (f"xtok_123 {marker('thing')}", 1)


def test_anchored_rule_folds_case_and_keeps_indices_with_non_ascii() -> None:
    rule = Rule("thing", r"(?i:secret)=(?P<secret>\w+)", anchors=("secret",), folded=True)
    text = "İİ SECRET=abc Secret=def"  # "İ".lower() is two characters long
    assert apply_rules([rule], text) == (f"İİ SECRET={marker('thing')} Secret={marker('thing')}", 2)


def test_lead_moves_the_start_back_from_the_anchor() -> None:
    rule = Rule("thing", r"(?:api_)key=(?P<secret>\w+)", anchors=("key",), lead=r"api_\Z")
    assert apply_rules([rule], "api_key=abc key=def") == (f"api_key={marker('thing')} key=def", 1)


def test_a_rejected_match_does_not_hide_a_later_one() -> None:
    rule = Rule("thing", r"k=(?P<secret>[a-z =]+)", anchors=("k=",), decide=_kind)
    assert apply_rules([rule], "k=keep k=abc") == (f"k=keep k={marker('thing')}", 1)


def test_already_redacted_values_are_left_alone() -> None:
    rule = Rule("thing", r"v=(?P<secret>\S+)", gates=("v=",))
    text = f"v={marker('other')}"
    assert apply_rules([rule], text) == (text, 0)


def test_lazy_pattern_compiles_once() -> None:
    lazy = LazyPattern(r"a+")
    assert lazy.get() is lazy.get()
