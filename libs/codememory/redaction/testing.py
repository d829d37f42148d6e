"""Realistic secrets for tests: ``secret_corpus`` generates them, each embedded in a line of context.

Why it lives in the library: the redaction unit tests and the end-to-end tests (which seed secrets
into real hook payloads and then search the event log and the vector store for them) must agree
on what a secret looks like. The corpus is deterministic for a given ``(count, seed)``; keep it
stable, since tests elsewhere rely on it.

Each ``SecretSample`` has the ``kind`` ``redact_text`` reports for it (``[REDACTED:<kind>]``), the
exact sensitive ``secret`` substring that must not survive redaction, and a ``context`` line that
embeds it the way it shows up in real work (``export GITHUB_TOKEN=ghp_...``, a curl header, a
connection string, a ``.env`` line, a JSON-escaped PEM key...). Kinds are dealt round-robin, so a
corpus of ``count`` samples holds each of the ``SECRET_KINDS`` ``count // len(SECRET_KINDS)``
or one more times. Only the standard library is used; the values are random, never real. The makers
are in ``faketokens.py`` (vendors' tokens) and ``fakesecrets.py`` (secrets known by their context).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from codememory.redaction import fakesecrets as generic
from codememory.redaction import faketokens as vendor
from codememory.redaction.fakesecrets import Maker

__all__ = ["MAKERS", "SECRET_KINDS", "SecretSample", "secret_corpus"]


@dataclass(frozen=True, slots=True)
class SecretSample:
    """One generated secret: its kind, the sensitive substring, and a line embedding it."""

    kind: str
    secret: str
    context: str


_MAKERS: dict[str, Maker] = {
    "aws_access_key": vendor.aws_access_key,
    "aws_secret_key": vendor.aws_secret_key,
    "github_token": vendor.github_token,
    "gitlab_token": vendor.gitlab_token,
    "slack_token": vendor.slack_token,
    "slack_webhook": vendor.slack_webhook,
    "stripe_key": vendor.stripe_key,
    "openai_key": vendor.openai_key,
    "anthropic_key": vendor.anthropic_key,
    "google_api_key": vendor.google_api_key,
    "google_oauth_secret": vendor.google_oauth_secret,
    "npm_token": vendor.npm_token,
    "pypi_token": vendor.pypi_token,
    "twilio_api_key": vendor.twilio_api_key,
    "sendgrid_key": vendor.sendgrid_key,
    "mailgun_key": vendor.mailgun_key,
    "jwt": generic.jwt,
    "private_key": generic.private_key,
    "password_in_url": generic.password_in_url,
    "bearer_token": generic.bearer_token,
    "basic_auth": generic.basic_auth,
    "dotenv_assignment": generic.dotenv_assignment,
    "secret_assignment": generic.secret_assignment,
    "azure_storage_key": vendor.azure_storage_key,
    "huggingface_token": vendor.huggingface_token,
    "digitalocean_token": vendor.digitalocean_token,
    "shopify_token": vendor.shopify_token,
    "databricks_token": vendor.databricks_token,
    "heroku_api_key": vendor.heroku_api_key,
    "telegram_bot_token": vendor.telegram_bot_token,
    "vault_token": vendor.vault_token,
    "cli_secret_flag": generic.cli_secret_flag,
}

SECRET_KINDS: tuple[str, ...] = tuple(_MAKERS)
"""The kinds ``secret_corpus`` deals round-robin, in order."""

MAKERS: Mapping[str, Maker] = MappingProxyType(_MAKERS)
"""Each kind's maker (read-only): the one table tests of single makers select from."""


def secret_corpus(count: int = 240, seed: int = 7) -> list[SecretSample]:
    """``count`` random but validly shaped secrets, kinds dealt round-robin from ``SECRET_KINDS``."""
    rng = random.Random(seed)
    samples: list[SecretSample] = []
    for index in range(count):
        kind = SECRET_KINDS[index % len(SECRET_KINDS)]
        secret, context = _MAKERS[kind](rng)
        samples.append(SecretSample(kind=kind, secret=secret, context=context))
    return samples
