"""Provider credentials recognisable by their own shape, wherever they appear.

Why a separate table: these formats carry a vendor prefix (``ghp_``, ``AKIA``, ``xoxb-``...), so
they can be found in prose, shell output or file contents without any surrounding context and
with almost no false positives. Each rule runs only if one of its literal gates occurs in the
text, and its pattern starts with the literal prefix its formats share, so that ``re`` skips
through the text at C speed; the alternative that matched names the kind. Lengths are minimums,
not exact, so a longer token of a known family is still caught rather than leaked.
"""

from __future__ import annotations

import re

from codememory.redaction.rule import Rule

_END = r"(?![A-Za-z0-9])"
_KINDS_SEEN: set[str] = {"telegram_bot_token"}
_LITERAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _kind_of(match: re.Match[str]) -> str | None:
    name = match.lastgroup
    return None if name is None else name.split("_", 1)[1]


def _shared_prefix(bodies: list[str]) -> str:
    prefix = ""
    for chars in zip(*bodies, strict=False):
        if len(set(chars)) != 1 or chars[0] not in _LITERAL:
            break
        prefix += chars[0]
    return prefix


def _tokens(gates: tuple[str, ...], *formats: tuple[str, str]) -> Rule:
    """One rule for ``(kind, pattern)`` formats, run when one of ``gates`` occurs in the text.

    The literal prefix the formats share is factored out in front of the alternatives: ``re``
    only scans fast for a pattern that itself starts with a literal.
    """
    _KINDS_SEEN.update(kind for kind, _ in formats)
    prefix = _shared_prefix([body for _, body in formats])
    if not prefix:
        raise ValueError(f"token formats {formats!r} share no literal prefix")
    alternatives = "|".join(
        f"(?P<k{i}_{kind}>{body[len(prefix) :]})" for i, (kind, body) in enumerate(formats)
    )
    return Rule(formats[0][0], f"{prefix}(?:{alternatives})", gates=gates, bounded=True, decide=_kind_of)


TOKEN_RULES: tuple[Rule, ...] = (
    _tokens(
        ("sk-", "sk_"),
        ("anthropic_key", r"sk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}"),
        ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{32,}"),
        ("openai_key", r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,256}[0-9])[A-Za-z0-9_-]{20,}"),
        ("stripe_key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ),
    _tokens(("rk_",), ("stripe_key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}")),
    _tokens(("whsec_",), ("stripe_webhook_secret", r"whsec_[A-Za-z0-9+/=]{24,}")),
    _tokens(("shp",), ("shopify_token", rf"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{_END}")),
    _tokens(("sntr",), ("sentry_token", r"sntr[yu]s_[A-Za-z0-9+/=_-]{40,}")),
    _tokens(("AKIA", "ASIA", "ABIA", "ACCA"), ("aws_access_key", r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16,}")),
    _tokens(("AIza",), ("google_api_key", r"AIza[0-9A-Za-z_-]{35,}")),
    _tokens(("GOCSPX-",), ("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{24,}")),
    _tokens(("ya29.",), ("google_oauth_token", r"ya29\.[0-9A-Za-z_-]{20,}")),
    _tokens(
        ("gh", "github_pat_"),
        ("github_token", r"gh[pousr]_[A-Za-z0-9]{30,}"),
        ("github_token", r"github_pat_[A-Za-z0-9_]{22,}"),
    ),
    _tokens(
        ("gl",),
        ("gitlab_token", r"gl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
        ("grafana_token", r"gl(?:sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|c_[A-Za-z0-9+/]{32,}={0,2})"),
    ),
    _tokens(
        ("xox", "xapp-"),
        ("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
        ("slack_token", r"xapp-[0-9]+-[A-Za-z0-9-]{10,}"),
    ),
    _tokens(("npm_",), ("npm_token", r"npm_[A-Za-z0-9]{36,}")),
    _tokens(("pypi-AgE",), ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}")),
    _tokens(("SK",), ("twilio_api_key", rf"SK[0-9a-f]{{32}}{_END}")),
    _tokens(("AC",), ("twilio_account_sid", rf"AC[0-9a-f]{{32}}{_END}")),
    _tokens(("SG.",), ("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    _tokens(("key-",), ("mailgun_key", rf"key-[0-9a-f]{{32}}{_END}")),
    _tokens(("eyJ",), ("jwt", r"eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,16384}\.[A-Za-z0-9_-]{0,4096}")),
    _tokens(("hf_",), ("huggingface_token", r"hf_[A-Za-z0-9]{30,}")),
    _tokens(("hv",), ("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}")),
    _tokens(("_v1_",), ("digitalocean_token", r"do[por]_v1_[a-f0-9]{64}")),
    _tokens(("dapi",), ("databricks_token", rf"dapi[a-f0-9]{{32}}(?:-[0-9]+)?{_END}")),
    _tokens(("lin_",), ("linear_api_key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}")),
    _tokens(("NRAK-",), ("newrelic_key", r"NRAK-[A-Z0-9]{27,}")),
    _tokens(("PMAK-",), ("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}")),
    _tokens(
        ("AGE-SECRET-KEY-1",), ("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")
    ),
    Rule(
        "telegram_bot_token",
        r"(?<![0-9])(?P<secret>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})",
        anchors=(":AA",),
        lead=r"[0-9]{8,10}\Z",
    ),
)
"""Vendor-prefixed credentials; ``anthropic_key`` is tried before ``openai_key`` (both ``sk-``)."""

TOKEN_KINDS: frozenset[str] = frozenset(_KINDS_SEEN)
"""Every kind the vendor-token rules report."""
