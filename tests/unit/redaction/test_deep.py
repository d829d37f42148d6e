"""redact / clean over JSON-like values: structure and non-strings kept, secret fields hidden."""

from __future__ import annotations

import copy

from codememory.redaction import SECRET_FIELD, clean, is_secret_key, redact

GITHUB = "ghp_" + "Zq9" * 12


def test_structure_and_non_string_values_are_kept() -> None:
    value = {
        "n": 1,
        "f": 2.5,
        "ok": True,
        "none": None,
        "max_tokens": 512,
        "list": [1, "plain text", {"deep": [None, False]}],
        "tuple": ("a", 2),
    }
    assert redact(value) == value


def test_strings_anywhere_are_redacted() -> None:
    value = {"tool_input": {"command": f"git push https://{GITHUB}@github.com/a/b"}, "out": [f"x {GITHUB}"]}
    out = redact(value)
    assert isinstance(out, dict)
    assert GITHUB not in repr(out)
    assert out["out"] == ["x [REDACTED:github_token]"]


def test_input_is_not_mutated() -> None:
    value = {"a": [f"token {GITHUB}"], "password": "hunter2"}
    before = copy.deepcopy(value)
    redact(value)
    assert value == before


def test_secret_named_fields_are_replaced_wholesale() -> None:
    value = {
        "password": "short",
        "DB_PASSWORD": "correcthorse",
        "apiKey": "anything",
        "Authorization": "Bearer x",
        "client-secret": "s",
        "credentials": {"user": "me", "token": "abc"},
        "api_keys": ["k1", "k2"],
        "auth": True,
        "secret": "",
        "token_count": "7",
        "tokenizer": "bert",
        "password_field": "pw",
        "max_tokens": 512,
    }
    out = redact(value)
    assert out == {
        "password": SECRET_FIELD,
        "DB_PASSWORD": SECRET_FIELD,
        "apiKey": SECRET_FIELD,
        "Authorization": SECRET_FIELD,
        "client-secret": SECRET_FIELD,
        "credentials": {"user": "me", "token": SECRET_FIELD},
        "api_keys": [SECRET_FIELD, SECRET_FIELD],
        "auth": True,
        "secret": "",
        "token_count": "7",
        "tokenizer": "bert",
        "password_field": "pw",
        "max_tokens": 512,
    }


def test_is_secret_key() -> None:
    for name in ("password", "PASSWORD", "db_password", "dbPassword", "API_KEY", "apikey", "api-key",
                 "access_key", "private_key", "client_secret", "auth", "x-auth-token", "credentials",
                 "GITHUB_TOKEN", "secret", "aws_secret_access_key", "Authorization"):  # fmt: skip
        assert is_secret_key(name), name
    for name in ("token_count", "tokenizer", "password_field", "max_tokens", "author", "bypass",
                 "tool_use_id", "session_id", "transcript_path", "token_url", "secret_name", "keyboard",
                 "primary_key", "signature"):  # fmt: skip
        assert not is_secret_key(name), name


def test_clean_strips_private_blocks_in_every_string() -> None:
    value = {"prompt": "hi <private>my address</private>there", "n": 3}
    assert clean(value) == {"prompt": "hi there", "n": 3}
