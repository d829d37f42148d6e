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

_WORDS = (
    r"pass(?:word|wd|phrase)?s?|secrets?|tokens?|credentials?|creds|authorization|auth"
    r"|(?:api|access|secret|private|signing|encryption|master|account|client|app|license)[_.-]?keys?"
    r"|apikeys?|client[_.-]?secrets?"
)
_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
_STOP = r"(?:(?<=[a-z])(?![a-z0-9])|(?<=[A-Z])(?![A-Za-z0-9]))"
_KEYWORD = f"{_START}(?P<kw>(?i:{_WORDS})){_STOP}"
_KEY_QUALIFIERS = "api|access|secret|private|signing|encryption|master|account|client|app|license"
KEY_LEAD = re.compile(rf"(?:{_KEY_QUALIFIERS})[_.-]?\Z")
"""Where a name ending in ``key`` starts (``api_`` of ``api_key``), searched in lower case."""

_SEGMENTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_BENIGN_LAST = frozenset(
    "count counts len length size limit limits max min type types kind name names field fields id ids"
    " url urls uri endpoint path paths file files filename dir directory location prefix suffix format"
    " pattern regex label env var ttl expiry expires expiration lifetime timeout policy hint required"
    " enabled mode method methods provider strategy version index idx usage budget arn domain source"
    " manager service backend class cls module schema column table param placeholder prompt message"
    " error exception validator validation input widget form scope scopes audience issuer algorithm"
    " alg cache reset rotation store storage event events bucket".split()
)
_NOT_SECRET_WORDS = frozenset(
    "true false none null nil undefined yes no on off required optional disabled enabled redacted".split()
)
_NUMBER = re.compile(r"[-+]?[0-9][0-9_.,eExX+-]*")
_REFERENCE = re.compile(
    r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}|\([^)]*\))|\{\{.*\}\}|\{[A-Za-z0-9_.]*\}|<[^<>]*>|%\(?[A-Za-z_]*\)?[sd]",
    re.DOTALL,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FILE_PATH = re.compile(r"(?:~|\.\.?)?/(?:[\w.@-]+/)*[\w@-]+\.[A-Za-z]{1,5}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")
_MASK = re.compile(r"[*xX•._-]+")

_SECRET_NAME = re.compile(rf"{_KEYWORD}(?P<tail>[A-Za-z0-9_.-]*)")


def _names_a_secret(keyword_and_tail: str) -> bool:
    segments = _SEGMENTS.findall(keyword_and_tail)
    return not segments or segments[-1].lower() not in _BENIGN_LAST


def is_secret_key(name: str) -> bool:
    """True when ``name`` (a variable, header or dict key) names a secret."""
    for match in _SECRET_NAME.finditer(name):
        if _names_a_secret(match.group(0)):
            return True
    return False


def _is_reference(value: str) -> bool:
    return _REFERENCE.fullmatch(value) is not None


def literal_quoted(value: str) -> bool:
    """True when a quoted ``value`` given to a secret-named key is a literal worth hiding."""
    stripped = value.strip()
    if len(stripped) < 2 or stripped.lower() in _NOT_SECRET_WORDS:
        return False
    if _is_reference(stripped) or _MASK.fullmatch(stripped):
        return False
    return not (_URL.fullmatch(stripped) or _FILE_PATH.fullmatch(stripped))


def literal_bare(value: str, *, env_style: bool, yaml_style: bool, next_char: str) -> bool:
    """True when an unquoted ``value`` given to a secret-named key is a literal worth hiding."""
    if (next_char and next_char in "([") or len(value) < 8:
        return False
    if value.lower() in _NOT_SECRET_WORDS or _NUMBER.fullmatch(value) or _is_reference(value):
        return False
    if _URL.fullmatch(value) or _FILE_PATH.fullmatch(value) or _MASK.fullmatch(value):
        return False
    if _DOTTED.fullmatch(value):
        return False
    if _IDENTIFIER.fullmatch(value):
        if env_style:
            return True
        has_digit = any(c.isdigit() for c in value)
        if has_digit and "_" not in value:
            return True
        return yaml_style and value.isalpha() and value.islower()
    return True


_QUOTED_OR_BARE = (
    r"(?P<q>\\?[\"'`])?"
    r"(?P<secret>(?(q)(?:\\.|[^\\\n])*?|(?:[^\s\"'`,;&()\[\]{}<>\\]|\\(?![nrt\"\\]))+))"
    r"(?(q)(?:(?P=q)|(?=[\r\n])|\Z))"
)
_SEPARATOR = (
    r"(?P<sep>[ \t]*(?:"
    r":[ \t]*(?:[A-Z][\w.]*|str|bytes|typing\.\w+)(?:\[[\w.\[\], |]*\])?(?:[ \t]*\|[ \t]*None)?[ \t]+="
    r"|=>|:=|[:=])(?!=)[ \t]*)"
)
ASSIGNMENT = re.compile(rf"{_KEYWORD}(?P<tail>[A-Za-z0-9_.-]*)(?:\\?[\"'])?{_SEPARATOR}{_QUOTED_OR_BARE}")


def decide_assignment(match: re.Match[str]) -> str | None:
    """Kind for an ``ASSIGNMENT`` match, or ``None`` when it is ordinary code."""
    name = match.group("kw") + match.group("tail")
    if not _names_a_secret(name):
        return None
    sep = match.group("sep")
    env_style = sep == "=" and not any(c.islower() for c in name)
    value = match.group("secret")
    if match.group("q") is not None:
        literal = literal_quoted(value)
    else:
        end = match.end()
        next_char = match.string[end : end + 1]
        literal = literal_bare(value, env_style=env_style, yaml_style=":" in sep, next_char=next_char)
    if not literal:
        return None
    return "dotenv_assignment" if sep.strip() == "=" and name.isupper() else "secret_assignment"


CLI_FLAG = re.compile(
    r"(?<![\w-])--(?:[A-Za-z0-9]+-)*"
    r"(?i:password|passwd|passphrase|token|secret|api-?key|access-key|secret-key|client-secret"
    r"|auth-token|access-token)(?![\w-])[ \t]+"
    r"(?P<q>[\"'])?(?P<secret>(?(q)[^\n]*?|[^\s\"'`;&|)]+))(?(q)(?:(?P=q)|$))",
    re.MULTILINE,
)


def decide_cli_flag(match: re.Match[str]) -> str | None:
    """Kind for ``--password value`` style arguments, unless the value is a flag or reference."""
    value = match.group("secret")
    if value.startswith("-") or len(value) < 4 or _is_reference(value):
        return None
    return "cli_secret_flag"
