"""Secrets found by where they sit: key blocks, URL credentials, auth headers, connection strings.

Why separate from ``tokens``: these values have no vendor prefix of their own (a password, a
base64 key, an opaque bearer token), so the surrounding text is what identifies them, and only
the value is replaced: ``postgres://user:[REDACTED:password_in_url]@host/db`` keeps the host and
``Authorization: Bearer [REDACTED:bearer_token]`` keeps the scheme. Order matters: whole
private-key blocks go first, generic secret-named assignments last, so a value already caught by
a precise rule keeps its precise kind.
"""

from __future__ import annotations

import re

from codememory.redaction.assignment import (
    ASSIGNMENT,
    CLI_FLAG,
    KEY_LEAD,
    decide_assignment,
    decide_cli_flag,
    is_reference,
    literal_bare,
)
from codememory.redaction.rule import Rule

# A block runs to its END line over base64, whitespace, header and escaped-newline characters
# (so a BEGIN line quoted in code does not swallow the code after it); a block cut short (a
# truncated payload) runs over the base64 lines that follow its BEGIN line.
_PEM_BODY = r"[A-Za-z0-9+/=\s\\:,.-]"
_PEM_LINE = r"(?:\\r)?(?:\\n|\r?\n)(?:[A-Za-z-]+: [^\n\\]*|[A-Za-z0-9+/=]+)?"
_PRIVATE_KEY = (
    r"(?P<secret>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
    rf"(?:{_PEM_BODY}{{0,16384}}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:{_PEM_LINE})+))"
)
_URL_PASSWORD = r"://(?<=[A-Za-z0-9]://)[^\s:/@'\"<>]*:(?P<secret>[^\s/@'\"<>]+)@"
_SLACK_WEBHOOK = (
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)+)"
)
_DISCORD_WEBHOOK = r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]{6,}/[A-Za-z0-9_-]{20,})"
_AUTH_HEADER = (
    r"(?<![A-Za-z0-9])(?i:authorization)(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'])?"
    r"(?:(?P<scheme>(?i:bearer|basic|token|digest|negotiate|ntlm|apikey|bot))[ \t]+)?"
    r"(?P<secret>[^\s\"'\\,;()]{1,4096})"
)
_BEARER = r"(?<![A-Za-z0-9])(?i:bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{16,})"
_AZURE_KEY = r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<secret>[^;\s\"']{16,})"
_AWS_SECRET = (
    r"(?i:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key)(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'])?"
    r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_HEROKU = (
    r"(?i:heroku[_.-]?(?:api[_.-]?key|api[_.-]?token|auth[_.-]?token|token))(?:\\?[\"'])?"
    rf"[ \t]*[:=][ \t]*(?:\\?[\"'])?(?P<secret>{_UUID})"
)
_CURL_USER = r"(?<![\w-])(?:-u|--user)[ \t]+[\"']?[^\s:\"'$]+:(?P<secret>[^\s\"']+)"
_AUTH_KINDS = {"bearer": "bearer_token", "token": "bearer_token", "basic": "basic_auth"}


def _decide_auth_header(match: re.Match[str]) -> str | None:
    secret = match.group("secret")
    if is_reference(secret) or "<" in secret:
        return None
    scheme = match.group("scheme")
    if scheme is None:
        end = match.end()
        if not literal_bare(secret, env_style=False, next_char=match.string[end : end + 1]):
            return None
        return "authorization_header"
    return _AUTH_KINDS.get(scheme.lower(), "authorization_header")


def _decide_url(match: re.Match[str]) -> str | None:
    secret = match.group("secret")
    if "<" in secret or is_reference(secret):
        return None
    return "password_in_url"


def _decide_curl_user(match: re.Match[str]) -> str | None:
    secret = match.group("secret")
    if secret.isdigit() or secret.startswith("//") or is_reference(secret):
        return None
    return "basic_auth"


KEY_BLOCK_RULES: tuple[Rule, ...] = (Rule("private_key", _PRIVATE_KEY, gates=("PRIVATE KEY",)),)
"""Whole PEM/PGP private-key blocks; run before anything else touches their base64 body."""

CONTEXT_RULES: tuple[Rule, ...] = (
    Rule("slack_webhook", _SLACK_WEBHOOK, gates=("hooks.slack.com/",)),
    Rule("discord_webhook", _DISCORD_WEBHOOK, gates=("/api/webhooks/",)),
    Rule("password_in_url", _URL_PASSWORD, gates=("://",), decide=_decide_url),
    Rule("azure_storage_key", _AZURE_KEY, anchors=("accountkey=", "sharedaccess"), folded=True),
    Rule("aws_secret_key", _AWS_SECRET, anchors=("aws",), folded=True),
    Rule("heroku_api_key", _HEROKU, anchors=("heroku",), folded=True),
    Rule(
        "authorization_header",
        _AUTH_HEADER,
        anchors=("authorization",),
        folded=True,
        decide=_decide_auth_header,
    ),
    Rule("bearer_token", _BEARER, anchors=("bearer",), folded=True),
    Rule("basic_auth", _CURL_USER, anchors=("-u", "--user"), decide=_decide_curl_user),
    Rule("cli_secret_flag", CLI_FLAG, anchors=("--",), decide=decide_cli_flag),
    Rule(
        "secret_assignment",
        ASSIGNMENT,
        anchors=("pass", "secret", "token", "cred", "auth"),
        folded=True,
        decide=decide_assignment,
    ),
    Rule(
        "secret_assignment",
        ASSIGNMENT,
        anchors=("key",),
        folded=True,
        lead=KEY_LEAD,
        decide=decide_assignment,
    ),
)
"""Context-identified secrets, in the order they must run (after the vendor-token rules)."""
