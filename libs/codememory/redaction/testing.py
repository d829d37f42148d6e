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
or one more times. Only the standard library is used; the values are random, never real.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SECRET_KINDS", "SecretSample", "secret_corpus"]


@dataclass(frozen=True, slots=True)
class SecretSample:
    """One generated secret: its kind, the sensitive substring, and a line embedding it."""

    kind: str
    secret: str
    context: str


_ALNUM = string.ascii_letters + string.digits
_UPPER_NUM = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"
_PASSWORD = _ALNUM + "-!%+=@*^~"

Maker = Callable[[random.Random], tuple[str, str]]


def _pick(rng: random.Random, alphabet: str, length: int) -> str:
    """``length`` random characters of ``alphabet``, with a digit and a letter if it has both.

    (Real tokens of 16+ random characters nearly always mix both; forcing it keeps a rare
    all-letter draw from looking like an identifier.)
    """
    chars = [rng.choice(alphabet) for _ in range(length)]
    digits = [c for c in alphabet if c.isdigit()]
    letters = [c for c in alphabet if c.isalpha()]
    if length >= 2 and digits and letters:
        digit_at, letter_at = rng.sample(range(length), 2)
        chars[digit_at] = rng.choice(digits)
        chars[letter_at] = rng.choice(letters)
    return "".join(chars)


def _context(rng: random.Random, secret: str, *templates: str) -> tuple[str, str]:
    return secret, rng.choice(templates).replace("{s}", secret)


def _aws_access_key(rng: random.Random) -> tuple[str, str]:
    secret = rng.choice(("AKIA", "ASIA")) + "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)
    )
    return _context(
        rng, secret, "export AWS_ACCESS_KEY_ID={s}", "aws_access_key_id = {s}", '"AccessKeyId": "{s}",'
    )


def _aws_secret_key(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _B64, 40)
    return _context(
        rng,
        secret,
        "aws_secret_access_key = {s}",
        "export AWS_SECRET_ACCESS_KEY={s}",
        '"aws_secret_access_key": "{s}"',
    )


def _github_token(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.25:
        secret = f"github_pat_{_pick(rng, _ALNUM, 22)}_{_pick(rng, _ALNUM, 59)}"
    else:
        secret = f"gh{rng.choice('pousr')}_{_pick(rng, _ALNUM, 36)}"
    return _context(
        rng,
        secret,
        "export GITHUB_TOKEN={s}",
        "git clone https://x-access-token:{s}@github.com/acme/api.git",
        "echo {s} | gh auth login --with-token",
    )


def _gitlab_token(rng: random.Random) -> tuple[str, str]:
    secret = "glpat-" + _pick(rng, _URLSAFE, 20)
    return _context(
        rng,
        secret,
        "GITLAB_TOKEN={s}",
        'curl --header "PRIVATE-TOKEN: {s}" https://gitlab.com/api/v4/projects',
    )


def _slack_token(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.3:
        secret = (
            f"xapp-1-A{_pick(rng, _UPPER_NUM, 10)}-{_pick(rng, string.digits, 13)}-{_pick(rng, _HEX, 64)}"
        )
    else:
        digits = f"{_pick(rng, string.digits, 12)}-{_pick(rng, string.digits, 13)}"
        secret = f"xox{rng.choice('bp')}-{digits}-{_pick(rng, _ALNUM, 24)}"
    return _context(rng, secret, "SLACK_BOT_TOKEN={s}", 'client = WebClient(token="{s}")')


def _slack_webhook(rng: random.Random) -> tuple[str, str]:
    secret = f"T{_pick(rng, _UPPER_NUM, 8)}/B{_pick(rng, _UPPER_NUM, 10)}/{_pick(rng, _ALNUM, 24)}"
    return _context(
        rng,
        secret,
        'curl -X POST -d \'{"text": "deploy done"}\' https://hooks.slack.com/services/{s}',
        'SLACK_WEBHOOK_URL="https://hooks.slack.com/services/{s}"',
    )


def _stripe_key(rng: random.Random) -> tuple[str, str]:
    secret = rng.choice(("sk_live_", "rk_live_", "sk_test_")) + _pick(rng, _ALNUM, rng.randint(24, 99))
    return _context(rng, secret, "STRIPE_SECRET_KEY={s}", 'stripe.api_key = "{s}"')


def _openai_key(rng: random.Random) -> tuple[str, str]:
    secret = "sk-proj-" + _pick(rng, _URLSAFE, 120) if rng.random() < 0.5 else "sk-" + _pick(rng, _ALNUM, 48)
    return _context(rng, secret, "OPENAI_API_KEY={s}", 'client = OpenAI(api_key="{s}")')


def _anthropic_key(rng: random.Random) -> tuple[str, str]:
    secret = f"sk-ant-api03-{_pick(rng, _URLSAFE, 93)}AA"
    return _context(
        rng,
        secret,
        "export ANTHROPIC_API_KEY={s}",
        'curl https://api.anthropic.com/v1/messages -H "x-api-key: {s}"',
    )


def _google_api_key(rng: random.Random) -> tuple[str, str]:
    secret = "AIza" + _pick(rng, _URLSAFE, 35)
    return _context(
        rng,
        secret,
        "GOOGLE_API_KEY={s}",
        "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={s}",
    )


def _google_oauth_secret(rng: random.Random) -> tuple[str, str]:
    secret = "GOCSPX-" + _pick(rng, _URLSAFE, 28)
    return _context(rng, secret, '"client_secret": "{s}",', "GOOGLE_CLIENT_SECRET={s}")


def _npm_token(rng: random.Random) -> tuple[str, str]:
    secret = "npm_" + _pick(rng, _ALNUM, 36)
    return _context(rng, secret, "//registry.npmjs.org/:_authToken={s}", "NPM_TOKEN={s}")


def _pypi_token(rng: random.Random) -> tuple[str, str]:
    secret = "pypi-AgEIcHlwaS5vcmc" + _pick(rng, _URLSAFE, rng.randint(60, 150))
    return _context(rng, secret, "password = {s}", "twine upload -u __token__ -p {s} dist/*")


def _twilio_api_key(rng: random.Random) -> tuple[str, str]:
    secret = "SK" + _pick(rng, _HEX, 32)
    return _context(rng, secret, "TWILIO_API_KEY={s}", 'client = Client("{s}", api_secret, account_sid)')


def _sendgrid_key(rng: random.Random) -> tuple[str, str]:
    secret = f"SG.{_pick(rng, _URLSAFE, 22)}.{_pick(rng, _URLSAFE, 43)}"
    return _context(rng, secret, "SENDGRID_API_KEY={s}", 'sg = SendGridAPIClient("{s}")')


def _mailgun_key(rng: random.Random) -> tuple[str, str]:
    secret = "key-" + _pick(rng, _HEX, 32)
    return _context(
        rng,
        secret,
        "MAILGUN_API_KEY={s}",
        "curl -s --user 'api:{s}' https://api.mailgun.net/v3/mg.example.com/messages",
    )


def _b64url_json(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def _jwt(rng: random.Random) -> tuple[str, str]:
    header = _b64url_json({"alg": rng.choice(("HS256", "RS256", "ES256")), "typ": "JWT"})
    claims = {
        "sub": _pick(rng, _ALNUM, 12),
        "iat": rng.randint(1_600_000_000, 1_800_000_000),
        "role": "admin",
    }
    secret = f"{header}.{_b64url_json(claims)}.{_pick(rng, _URLSAFE, 43)}"
    return _context(rng, secret, "Authorization: Bearer {s}", 'document.cookie = "session={s}"', "JWT={s}")


def _private_key(rng: random.Random) -> tuple[str, str]:
    label = rng.choice(("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"))
    lines = [_pick(rng, _B64, 64) for _ in range(rng.randint(4, 10))]
    if rng.random() < 0.5:
        secret = "\n".join(lines)
        return secret, f"-----BEGIN {label}-----\n{secret}\n-----END {label}-----"
    secret = "\\n".join(lines)
    return secret, f'"private_key": "-----BEGIN {label}-----\\n{secret}\\n-----END {label}-----\\n",'


def _password_in_url(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _ALNUM + "-_.~!*", rng.randint(12, 24))
    return _context(
        rng,
        secret,
        "DATABASE_URL=postgres://app_user:{s}@db.internal:5432/app",
        "redis-cli -u redis://default:{s}@cache.example.com:6379",
        "git remote add origin https://deploy:{s}@git.example.com/team/repo.git",
    )


def _bearer_token(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _ALNUM + "-_.", rng.randint(32, 64))
    return _context(
        rng,
        secret,
        'curl -H "Authorization: Bearer {s}" https://api.example.com/v1/items',
        "Authorization: Bearer {s}",
        'requests.get(url, headers={"Authorization": "Bearer {s}"})',
    )


def _basic_auth(rng: random.Random) -> tuple[str, str]:
    pair = f"{_pick(rng, string.ascii_lowercase, 6)}:{_pick(rng, _PASSWORD, 16)}"
    secret = base64.b64encode(pair.encode()).decode()
    return _context(
        rng, secret, "Authorization: Basic {s}", 'curl -H "Authorization: Basic {s}" https://ci.example.com'
    )


_ENV_NAMES = (
    "DB_PASSWORD", "POSTGRES_PASSWORD", "SECRET_KEY", "SESSION_SECRET", "JWT_SECRET", "API_TOKEN",
    "APP_SECRET", "AUTH_TOKEN", "ENCRYPTION_KEY", "MYSQL_ROOT_PASSWORD", "REDIS_PASSWORD", "WEBHOOK_SECRET",
)  # fmt: skip


def _dotenv_assignment(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _PASSWORD, rng.randint(16, 40))
    name = rng.choice(_ENV_NAMES)
    line = rng.choice(("{n}={s}", 'export {n}="{s}"', "{n}='{s}'"))
    return secret, line.replace("{n}", name).replace("{s}", secret)


_CODE_NAMES = ("password", "db_password", "api_key", "apiKey", "client_secret", "auth_token", "secretKey")


def _secret_assignment(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _ALNUM + "-!%+=@*^~", rng.randint(12, 32))
    name = rng.choice(_CODE_NAMES)
    line = rng.choice(("{n}: {s}", '{n} = "{s}"', '"{n}": "{s}",', "{n}: '{s}'"))
    return secret, line.replace("{n}", name).replace("{s}", secret)


def _azure_storage_key(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _B64, 86) + "=="
    account = _pick(rng, string.ascii_lowercase, 10)
    return secret, (
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;'
        f'AccountName={account};AccountKey={secret};EndpointSuffix=core.windows.net"'
    )


def _huggingface_token(rng: random.Random) -> tuple[str, str]:
    secret = "hf_" + _pick(rng, _ALNUM, 34)
    return _context(rng, secret, "HF_TOKEN={s}", "huggingface-cli login --token {s}")


def _digitalocean_token(rng: random.Random) -> tuple[str, str]:
    secret = "dop_v1_" + _pick(rng, _HEX, 64)
    return _context(rng, secret, "DIGITALOCEAN_ACCESS_TOKEN={s}", "doctl auth init -t {s}")


def _shopify_token(rng: random.Random) -> tuple[str, str]:
    secret = "shpat_" + _pick(rng, _HEX, 32)
    return _context(
        rng, secret, "SHOPIFY_ACCESS_TOKEN={s}", 'curl -H "X-Shopify-Access-Token: {s}" https://shop.example'
    )


def _databricks_token(rng: random.Random) -> tuple[str, str]:
    secret = "dapi" + _pick(rng, _HEX, 32)
    return _context(rng, secret, "DATABRICKS_TOKEN={s}", "token = {s}")


def _heroku_api_key(rng: random.Random) -> tuple[str, str]:
    raw = "".join(rng.choice(_HEX) for _ in range(32))
    secret = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
    return _context(rng, secret, "HEROKU_API_KEY={s}", 'heroku_api_key: "{s}"')


def _telegram_bot_token(rng: random.Random) -> tuple[str, str]:
    secret = f"{rng.randint(10_000_000, 9_999_999_999)}:AA{_pick(rng, _URLSAFE, 33)}"
    return _context(rng, secret, "TELEGRAM_BOT_TOKEN={s}", "curl https://api.telegram.org/bot{s}/getMe")


def _vault_token(rng: random.Random) -> tuple[str, str]:
    secret = "hvs." + _pick(rng, _URLSAFE, 24)
    return _context(rng, secret, "export VAULT_TOKEN={s}", "vault login {s}")


def _cli_secret_flag(rng: random.Random) -> tuple[str, str]:
    secret = _pick(rng, _ALNUM + "!%+=@*^~", rng.randint(10, 20))
    return _context(
        rng, secret, "mysql -h db.internal -u root --password {s} app", "./deploy.sh --api-key {s} --env prod"
    )


_MAKERS: dict[str, Maker] = {
    "aws_access_key": _aws_access_key,
    "aws_secret_key": _aws_secret_key,
    "github_token": _github_token,
    "gitlab_token": _gitlab_token,
    "slack_token": _slack_token,
    "slack_webhook": _slack_webhook,
    "stripe_key": _stripe_key,
    "openai_key": _openai_key,
    "anthropic_key": _anthropic_key,
    "google_api_key": _google_api_key,
    "google_oauth_secret": _google_oauth_secret,
    "npm_token": _npm_token,
    "pypi_token": _pypi_token,
    "twilio_api_key": _twilio_api_key,
    "sendgrid_key": _sendgrid_key,
    "mailgun_key": _mailgun_key,
    "jwt": _jwt,
    "private_key": _private_key,
    "password_in_url": _password_in_url,
    "bearer_token": _bearer_token,
    "basic_auth": _basic_auth,
    "dotenv_assignment": _dotenv_assignment,
    "secret_assignment": _secret_assignment,
    "azure_storage_key": _azure_storage_key,
    "huggingface_token": _huggingface_token,
    "digitalocean_token": _digitalocean_token,
    "shopify_token": _shopify_token,
    "databricks_token": _databricks_token,
    "heroku_api_key": _heroku_api_key,
    "telegram_bot_token": _telegram_bot_token,
    "vault_token": _vault_token,
    "cli_secret_flag": _cli_secret_flag,
}

SECRET_KINDS: tuple[str, ...] = tuple(_MAKERS)
"""The kinds ``secret_corpus`` deals round-robin, in order."""


def secret_corpus(count: int = 240, seed: int = 7) -> list[SecretSample]:
    """``count`` random but validly shaped secrets, kinds dealt round-robin from ``SECRET_KINDS``."""
    rng = random.Random(seed)
    samples: list[SecretSample] = []
    for index in range(count):
        kind = SECRET_KINDS[index % len(SECRET_KINDS)]
        secret, context = _MAKERS[kind](rng)
        samples.append(SecretSample(kind=kind, secret=secret, context=context))
    return samples
