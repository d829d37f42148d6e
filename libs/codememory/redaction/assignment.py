"""Secrets recognisable only by the name they are assigned to: ``DB_PASSWORD=...``, ``token: ...``.

Why it is careful: code is full of secret-sounding names that hold no secret (``token_count = 3``,
``password_field``, ``def get_token(self):``, ``tokenizer``, ``max_tokens: 512``). A name counts
only when a secret word stands as a whole word in it (``api_key``, ``dbPassword``, ``GITHUB_TOKEN``,
not ``tokenizer`` or ``bypass``) and its last word is not a descriptor (``_count``, ``_url``,
``_type``...). The value counts only when it looks like a literal: a quoted string, or a bare
value of 8+ characters that is not a number, boolean, variable reference, call or dotted name.
"""

from __future__ import annotations

import re

from codememory.redaction.rule import LazyPattern

_KEY_QUALIFIERS = "api|access|secret|private|signing|encryption|master|account|client|app|license"
_WORDS = (
    r"pass(?:word|wd|phrase)?s?|secrets?|token|credentials?|creds|authorization|auth"
    rf"|(?:{_KEY_QUALIFIERS})[_.-]?keys?|client[_.-]?secrets?"
)
# A secret word must start and end a word of the name: after a non-alphanumeric or at a
# camelCase hump, and before a non-letter (or a hump, for a lower-case word).
_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
_STOP = r"(?:(?<=[a-z])(?![a-z0-9])|(?<=[A-Z])(?![A-Za-z0-9]))"
_KEYWORD = f"{_START}(?P<kw>(?i:{_WORDS})){_STOP}"

KEY_LEAD = rf"(?:{_KEY_QUALIFIERS})[_.-]?\Z"
"""Where a name ending in ``key`` starts (``api_`` of ``api_key``), searched in lower case."""

_QUOTED_OR_BARE = (
    r"(?P<q>\\?[\"'`])?"
    r"(?P<secret>(?(q)(?:\\.|[^\\\n]){0,4096}?|(?:[^\s\"'`,;&()\[\]{}<>\\]|\\(?![nrt\"\\])){1,4096}))"
    r"(?(q)(?:(?P<closed>(?P=q))|(?=[\r\n])|\Z))"
)
_SEPARATOR = (
    r"(?P<sep>[ \t]*(?:"
    r":[ \t]*(?:[A-Z][\w.]*|str|bytes|typing\.\w+)(?:\[[\w.\[\], |]*\])?(?:[ \t]*\|[ \t]*None)?[ \t]+="
    r"|=>|:=|[:=])[ \t]*)"
)
ASSIGNMENT = rf"{_KEYWORD}(?P<tail>[A-Za-z0-9_.-]{{0,100}})(?:\\?[\"'])?{_SEPARATOR}{_QUOTED_OR_BARE}"
"""A secret-named key, an assignment operator and a quoted or bare value (group ``secret``)."""

CLI_FLAG = (
    r"(?<![\w-])--(?:[A-Za-z0-9]+-)*"
    r"(?i:password|passwd|passphrase|token|secret|api-?key|access-key|secret-key|client-secret"
    r"|auth-token|access-token)(?![\w-])[ \t]+"
    r"(?P<q>[\"'])?(?P<secret>(?(q)[^\n]*?|[^\s\"'`;&|)]+))(?(q)(?:(?P=q)|(?=\n)|\Z))"
)
"""``--password value`` style arguments (``--password=value`` is an ``ASSIGNMENT``)."""

# fmt: off
_BENIGN_LAST = frozenset((
    "count", "counts", "len", "length", "size", "limit", "limits", "max", "min", "type", "types",
    "kind", "name", "names", "field", "fields", "id", "ids", "url", "urls", "uri", "endpoint", "path",
    "paths", "file", "files", "filename", "dir", "directory", "location", "prefix", "suffix",
    "format", "pattern", "regex", "label", "env", "var", "ttl", "expiry", "expires", "expiration",
    "lifetime", "timeout", "policy", "hint", "required", "enabled", "mode", "method", "methods",
    "provider", "strategy", "version", "index", "idx", "usage", "budget", "arn", "domain", "source",
    "manager", "service", "backend", "class", "cls", "module", "schema", "column", "table", "param",
    "placeholder", "prompt", "message", "error", "exception", "validator", "validation", "input",
    "widget", "form", "scope", "scopes", "audience", "issuer", "algorithm", "alg", "cache", "reset",
    "rotation", "store", "storage", "event", "events", "bucket", "encoding", "charset", "str",
))
"""Last words that make a secret-named name a descriptor of the secret (``token_url``)."""
_NOT_SECRET_WORDS = frozenset((
    "true", "false", "none", "null", "nil", "undefined", "yes", "no", "on", "off", "required",
    "optional", "disabled", "enabled", "redacted", "basic", "bearer", "token", "digest",
))
# fmt: on
_SECRET_NAME = LazyPattern(rf"{_KEYWORD}(?P<tail>[A-Za-z0-9_.-]{{0,100}})")
_SEGMENTS = LazyPattern(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NUMBER = LazyPattern(r"[-+]?[0-9][0-9_.,eExX+-]*")
_REFERENCE = LazyPattern(
    r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}|\([^)]*\))|\{\{.*\}\}|\{[A-Za-z0-9_.]*\}|<[^<>]*>"
    r"|%\(?[A-Za-z_]*\)?[sd]",
    re.DOTALL,
)
_IDENTIFIER = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")
_LABEL = LazyPattern(r"[A-Za-z_-]+")
_CONSTANT = LazyPattern(r"[a-z]+(?:[_-][a-z]+)+|[A-Z]+(?:_[A-Z]+)*|#[0-9A-Fa-f]{3,8}")
_PLACEHOLDER = LazyPattern(r"\*\*\*|\.\.\.|…|<[A-Za-z_ -]+>")
_RANDOM_MARK = frozenset("0123456789!@#$%^*+=/~?")
_DOTTED = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FILE_PATH = LazyPattern(r"(?:~|\.\.?)?/(?:[\w.@-]+/)*[\w@-]+\.[A-Za-z]{1,5}")
_URL = LazyPattern(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")
_MASK = LazyPattern(r"[*xX•._-]+")
_TEMPLATE = LazyPattern(r"(?<![A-Za-z0-9])%[sdr](?![A-Za-z0-9])|%\([A-Za-z_]+\)[sd]|\{[0-9A-Za-z_]*\}|\$\{")
_VERSION = LazyPattern(r"v?[0-9]+(?:\.[0-9]+)+")


def _names_a_secret(keyword_and_tail: str) -> bool:
    if "." in keyword_and_tail:
        # ``token.markup`` names an attribute of a token, not a secret; ``creds.password`` does.
        last = keyword_and_tail.rsplit(".", 1)[1]
        return _SECRET_NAME.get().search(last) is not None and _names_a_secret(last)
    segments = _SEGMENTS.get().findall(keyword_and_tail)
    return not segments or segments[-1].lower() not in _BENIGN_LAST


def is_secret_key(name: str) -> bool:
    """True when ``name`` (a variable, header or dict key) names a secret."""
    return any(_names_a_secret(match.group(0)) for match in _SECRET_NAME.get().finditer(name))


def is_reference(value: str) -> bool:
    """True for a placeholder rather than a value: ``$VAR``, ``${VAR}``, ``{{ x }}``, ``<token>``."""
    return _REFERENCE.get().fullmatch(value) is not None


def _not_a_value(value: str) -> bool:
    return bool(
        is_reference(value)
        or _MASK.get().fullmatch(value)
        or _URL.get().fullmatch(value)
        or _FILE_PATH.get().fullmatch(value)
    )


def literal_quoted(value: str) -> bool:
    """True when a quoted ``value`` given to a secret-named key is a literal worth hiding.

    Not when it is a template (``"%s:%s"``, ``"{0}"``), a placeholder (``"hf_***"``), a version or
    OID, a constant-like word (``"EXTERNAL"``, ``"receive_close"``, ``"#ffffff"``), or a label that
    itself names a secret (``auth_header = "Authorization"``, ``"challengePassword"``).
    """
    stripped = value.strip()
    if len(stripped) < 2 or stripped.lower() in _NOT_SECRET_WORDS:
        return False
    if _TEMPLATE.get().search(stripped) or _PLACEHOLDER.get().search(stripped):
        return False
    if _VERSION.get().fullmatch(stripped) or _CONSTANT.get().fullmatch(stripped):
        return False
    if is_secret_key(stripped) and _LABEL.get().fullmatch(stripped):
        return False
    return not _not_a_value(stripped)


def literal_bare(value: str, *, env_style: bool, next_char: str) -> bool:
    """True when an unquoted ``value`` given to a secret-named key is a literal worth hiding.

    ``next_char`` follows the value (``(`` makes it a call). In ``env_style`` (``NAME=value`` with
    an upper-case name) any such value is a literal. Elsewhere a bare identifier counts only when
    it mixes letters and digits without underscores (``hunter2hunter``, not ``user_token``), and
    any other value only when it holds a digit or symbol: in code and prose a plain word after
    ``token:`` or ``password =`` is a variable or an English word (``token: re-exchanging``).
    """
    if (next_char and next_char in "([") or len(value) < 8 or value[0] == ":":
        return False
    if value.lower() in _NOT_SECRET_WORDS or _NUMBER.get().fullmatch(value) or _not_a_value(value):
        return False
    if _DOTTED.get().fullmatch(value):
        return False
    if env_style:
        return True
    if _IDENTIFIER.get().fullmatch(value):
        return "_" not in value and any(c.isdigit() for c in value)
    return looks_random(value)


def looks_random(value: str) -> bool:
    """True when ``value`` holds a digit or a symbol typical of generated secrets (not ``re-run``)."""
    return any(c in _RANDOM_MARK for c in value)


def _qualified(text: str, start: int, keyword: str) -> bool:
    """True when ``keyword`` at ``start`` ends a longer name (``DB_PASS``, ``smtpPass``)."""
    if start == 0:
        return False
    before = text[start - 1]
    return before in "_-." or (before.islower() and keyword[0].isupper())


def decide_assignment(match: re.Match[str]) -> str | None:
    """Kind for an ``ASSIGNMENT`` match, or ``None`` when it is ordinary code."""
    value = match.group("secret")
    sep = match.group("sep")
    keyword = match.group("kw")
    name = keyword + match.group("tail")
    text = match.string
    end = match.end()
    if keyword.lower() == "pass" and not _qualified(text, match.start(), keyword):
        return None
    if match.group("q") is not None:
        if match.group("closed") is None and (end < len(text) or any(c.isspace() for c in value)):
            # The "opening" quote closed a string (``print("token=" + repr(t))``); only a
            # payload cut inside a value leaves it open at the very end.
            return None
        literal = literal_quoted(value)
    else:
        env_style = sep == "=" and not any(c.islower() for c in name)
        literal = literal_bare(value, env_style=env_style, next_char=text[end : end + 1])
    if not literal or not _names_a_secret(name):
        return None
    return "dotenv_assignment" if sep.strip() == "=" and name.isupper() else "secret_assignment"


def decide_cli_flag(match: re.Match[str]) -> str | None:
    """Kind for ``--password value`` style arguments, unless the value is a flag or reference."""
    value = match.group("secret")
    if value.startswith("-") or len(value) < 6 or is_reference(value) or not looks_random(value):
        return None
    return "cli_secret_flag"
