"""Secrets with no vendor's prefix, shaped by where they appear: a password in a URL, a bearer or
basic credential in a header, a JWT, a PEM key, a ``.env`` line, an assignment in code, a CLI flag;
and the random draws every fake secret is made of (``pick``, ``in_context``, the alphabets).

Part of the test corpus of ``testing.py`` (vendors' tokens are in ``faketokens.py``): these are the
secrets a redactor finds by their context alone, since the value itself looks like any random text.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
PASSWORD = ALNUM + "-!%+=@*^~"

Maker = Callable[[random.Random], tuple[str, str]]


def pick(rng: random.Random, alphabet: str, length: int) -> str:
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


def in_context(rng: random.Random, secret: str, *templates: str) -> tuple[str, str]:
    """``secret`` and one of ``templates`` (drawn) with the secret in place of ``{s}``."""
    return secret, rng.choice(templates).replace("{s}", secret)


def _b64url_json(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def jwt(rng: random.Random) -> tuple[str, str]:
    header = _b64url_json({"alg": rng.choice(("HS256", "RS256", "ES256")), "typ": "JWT"})
    claims = {
        "sub": pick(rng, ALNUM, 12),
        "iat": rng.randint(1_600_000_000, 1_800_000_000),
        "role": "admin",
    }
    secret = f"{header}.{_b64url_json(claims)}.{pick(rng, URLSAFE, 43)}"
    return in_context(rng, secret, "Authorization: Bearer {s}", 'document.cookie = "session={s}"', "JWT={s}")


def private_key(rng: random.Random) -> tuple[str, str]:
    label = rng.choice(("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"))
    lines = [pick(rng, B64, 64) for _ in range(rng.randint(4, 10))]
    if rng.random() < 0.5:
        secret = "\n".join(lines)
        return secret, f"-----BEGIN {label}-----\n{secret}\n-----END {label}-----"
    secret = "\\n".join(lines)
    return secret, f'"private_key": "-----BEGIN {label}-----\\n{secret}\\n-----END {label}-----\\n",'


def password_in_url(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, ALNUM + "-_.~!*", rng.randint(12, 24))
    return in_context(
        rng,
        secret,
        "DATABASE_URL=postgres://app_user:{s}@db.internal:5432/app",
        "redis-cli -u redis://default:{s}@cache.example.com:6379",
        "git remote add origin https://deploy:{s}@git.example.com/team/repo.git",
    )


def bearer_token(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, ALNUM + "-_.", rng.randint(32, 64))
    return in_context(
        rng,
        secret,
        'curl -H "Authorization: Bearer {s}" https://api.example.com/v1/items',
        "Authorization: Bearer {s}",
        'requests.get(url, headers={"Authorization": "Bearer {s}"})',
    )


def basic_auth(rng: random.Random) -> tuple[str, str]:
    pair = f"{pick(rng, string.ascii_lowercase, 6)}:{pick(rng, PASSWORD, 16)}"
    secret = base64.b64encode(pair.encode()).decode()
    return in_context(
        rng, secret, "Authorization: Basic {s}", 'curl -H "Authorization: Basic {s}" https://ci.example.com'
    )


_ENV_NAMES = (
    "DB_PASSWORD", "POSTGRES_PASSWORD", "SECRET_KEY", "SESSION_SECRET", "JWT_SECRET", "API_TOKEN",
    "APP_SECRET", "AUTH_TOKEN", "ENCRYPTION_KEY", "MYSQL_ROOT_PASSWORD", "REDIS_PASSWORD", "WEBHOOK_SECRET",
)  # fmt: skip


def dotenv_assignment(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, PASSWORD, rng.randint(16, 40))
    name = rng.choice(_ENV_NAMES)
    line = rng.choice(("{n}={s}", 'export {n}="{s}"', "{n}='{s}'"))
    return secret, line.replace("{n}", name).replace("{s}", secret)


_CODE_NAMES = ("password", "db_password", "api_key", "apiKey", "client_secret", "auth_token", "secretKey")


def secret_assignment(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, ALNUM + "-!%+=@*^~", rng.randint(12, 32))
    name = rng.choice(_CODE_NAMES)
    line = rng.choice(("{n}: {s}", '{n} = "{s}"', '"{n}": "{s}",', "{n}: '{s}'"))
    return secret, line.replace("{n}", name).replace("{s}", secret)


def cli_secret_flag(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, ALNUM + "!%+=@*^~", rng.randint(10, 20))
    return in_context(
        rng, secret, "mysql -h db.internal -u root --password {s} app", "./deploy.sh --api-key {s} --env prod"
    )
