"""Identifier splitting: each code naming style yields its words, and the original stays."""

from __future__ import annotations

import pytest

from codememory.lexical import code_terms, identifier_parts


@pytest.mark.parametrize(
    ("token", "split"),
    [
        ("validateToken", "validate token"),
        ("HTTPServerError", "http server error"),
        ("getHTTPResponse2", "get http response 2"),
        ("parse_config", "parse config"),
        ("MAX_RETRY_COUNT", "max retry count"),
        ("my-kebab-name", "my kebab name"),
        ("os.path.join", "os path join"),
        ("std::io::Read", "std io read"),
        ("src/auth/jwt_utils.py", "src auth jwt utils py jwt_utils"),
        ("sha256sum", "sha 256 sum"),
        ("café_au_lait", "café au lait"),
        ("self.retryPolicy", "self retry policy retryPolicy"),
    ],
)
def test_identifier_is_followed_by_its_split_form(token: str, split: str) -> None:
    assert code_terms(token) == f"{token}\n{split}"


@pytest.mark.parametrize("text", ["plain prose, nothing to split.", "Hello World", "version 3.14", ""])
def test_prose_is_left_alone(text: str) -> None:
    assert code_terms(text) == text


def test_text_is_kept_and_each_form_added_once() -> None:
    text = "call validateToken() then validateToken(x) in src/auth/jwt_utils.py"
    assert code_terms(text) == f"{text}\nvalidate token src auth jwt utils py jwt_utils"


def test_hex_runs_stay_whole() -> None:
    text = "digest e3b0c44298fc1c149afbf4c8996fb924 matched"
    assert code_terms(text) == text
    assert identifier_parts("e3b0c44298fc1c149afbf4c8996fb924") == ("e3b0c44298fc1c149afbf4c8996fb924",)


def test_identifier_parts() -> None:
    assert identifier_parts("HTTPServerError") == ("http", "server", "error")
    assert identifier_parts("__init__") == ("init",)
    assert identifier_parts("x86_64") == ("x", "86", "64")
