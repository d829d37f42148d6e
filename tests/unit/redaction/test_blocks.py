"""strip_private / strip_injected / is_injected_only / clean_text."""

from __future__ import annotations

from codememory.redaction import (
    INJECTED_CLOSE,
    INJECTED_OPEN,
    clean_text,
    is_injected_only,
    strip_injected,
    strip_private,
)


def test_strip_private_drops_the_block_and_its_tags() -> None:
    assert strip_private("keep <private>my home address</private> this") == "keep  this"


def test_strip_private_is_case_insensitive_and_multiline() -> None:
    text = "a\n<PRIVATE>\nline 1\nline 2\n</Private>\nb"
    assert strip_private(text) == "a\n\nb"


def test_strip_private_unclosed_drops_to_the_end() -> None:
    assert strip_private("before <private> after, and more\nlines") == "before "


def test_strip_private_several_and_nested_blocks() -> None:
    text = "1<private>x</private>2<private>y<private>z</private>w</private>3"
    assert strip_private(text) == "123"


def test_strip_private_stray_closing_tag_is_dropped() -> None:
    assert strip_private("a</private>b") == "ab"


def test_strip_private_without_tags_returns_the_same_text() -> None:
    text = "private methods are fine: def _private(self): ..."
    assert strip_private(text) == text


def test_strip_injected_removes_codememory_context() -> None:
    text = f"Fix the bug.\n{INJECTED_OPEN}\n- remembered: use uv\n{INJECTED_CLOSE}\nThanks"
    assert strip_injected(text) == "Fix the bug.\n\nThanks"


def test_strip_injected_accepts_attributes_and_case() -> None:
    text = '<CodeMemory-Context source="recall">old memory</codememory-context>new'
    assert strip_injected(text) == "new"


def test_strip_injected_unclosed_drops_to_the_end() -> None:
    assert strip_injected(f"question{INJECTED_OPEN} memory that was cut") == "question"


def test_is_injected_only() -> None:
    assert is_injected_only(f"  {INJECTED_OPEN}memories{INJECTED_CLOSE}\n\n")
    assert is_injected_only("")
    assert not is_injected_only(f"{INJECTED_OPEN}memories{INJECTED_CLOSE} and a real question")
    assert not is_injected_only("plain prompt")


def test_clean_text_strips_then_redacts() -> None:
    text = (
        "deploy with API_TOKEN=abc123def456ghi789\n"
        "<private>my card 4111 1111 1111 1111</private>\n"
        f"{INJECTED_OPEN}recalled: ghp_{'x1' * 18}{INJECTED_CLOSE}"
    )
    out = clean_text(text)
    assert out == "deploy with API_TOKEN=[REDACTED:dotenv_assignment]\n\n"
