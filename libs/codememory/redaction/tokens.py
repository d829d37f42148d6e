"""Provider credentials recognisable by their own shape, wherever they appear.

Why a separate table: these formats carry a vendor prefix (``ghp_``, ``AKIA``, ``xoxb-``...), so
they can be found in prose, shell output or file contents without any surrounding context and
with almost no false positives. Every pattern starts with its prefix so that ``re`` can skip
through the text at C speed. Lengths are minimums, not exact, so a longer token of a known family
is still caught rather than leaked.
"""

from __future__ import annotations

import re

from codememory.redaction.rule import Rule

_END = r"(?![A-Za-z0-9])"
_AWS_PREFIXES = "AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA"


def _token(kind: str, body: str) -> Rule:
    return Rule(kind=kind, pattern=re.compile(f"(?P<secret>{body})"), bounded=True)


TOKEN_RULES: tuple[Rule, ...] = (
    _token(
        "anthropic_key",
        r"sk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}|sk-ant-[A-Za-z0-9_-]{32,}",
    ),
    _token("openai_key", r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}"),
    _token("aws_access_key", rf"(?:{_AWS_PREFIXES})[A-Z0-9]{{16,}}"),
    _token("github_token", r"gh(?:[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{22,})"),
    _token("gitlab_token", r"gl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
    _token("grafana_token", r"gl(?:sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|c_[A-Za-z0-9+/]{32,}={0,2})"),
    _token("slack_token", r"x(?:ox[abposre]-[A-Za-z0-9-]{10,}|app-[0-9]+-[A-Za-z0-9-]{10,})"),
    _token("stripe_key", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    _token("stripe_webhook_secret", r"whsec_[A-Za-z0-9+/=]{24,}"),
    _token("google_api_key", r"AIza[0-9A-Za-z_-]{35,}"),
    _token("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{24,}"),
    _token("google_oauth_token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    _token("npm_token", r"npm_[A-Za-z0-9]{36,}"),
    _token("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _token("twilio_api_key", rf"SK[0-9a-f]{{32}}{_END}"),
    _token("twilio_account_sid", rf"AC[0-9a-f]{{32}}{_END}"),
    _token("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    _token("mailgun_key", rf"key-[0-9a-f]{{32}}{_END}"),
    _token("jwt", r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    _token("huggingface_token", r"hf_[A-Za-z0-9]{30,}"),
    _token("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    _token("digitalocean_token", r"do[por]_v1_[a-f0-9]{64}"),
    _token("databricks_token", rf"dapi[a-f0-9]{{32}}(?:-[0-9]+)?{_END}"),
    _token("shopify_token", rf"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{_END}"),
    _token("linear_api_key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    _token("newrelic_key", r"NRAK-[A-Z0-9]{27,}"),
    _token("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("sentry_token", r"sntr[yu]s_[A-Za-z0-9+/=_-]{40,}"),
    _token("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    Rule(
        kind="telegram_bot_token",
        pattern=re.compile(r"(?<![0-9])(?P<secret>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})"),
        anchors=(":AA",),
        lead=re.compile(r"[0-9]{8,10}\Z"),
    ),
)
"""Vendor-prefixed credentials; ``anthropic_key`` precedes ``openai_key`` (both start ``sk-``)."""
