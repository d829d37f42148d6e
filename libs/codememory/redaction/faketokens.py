"""Vendors' tokens as their issuers shape them (``AKIA…``, ``ghp_…``, ``xoxb-…``, ``sk-ant-…``,
``glpat-…``, ``hf_…``…), each in a line of the tool or config that uses it.

Part of the test corpus of ``testing.py`` (secrets known by their context are in ``fakesecrets.py``,
with the random draws these are made of): a redactor finds these by their prefix and shape.
"""

from __future__ import annotations

import random
import string

from codememory.redaction.fakesecrets import ALNUM, B64, HEX, UPPER_NUM, URLSAFE, in_context, pick


def aws_access_key(rng: random.Random) -> tuple[str, str]:
    secret = rng.choice(("AKIA", "ASIA")) + "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)
    )
    return in_context(
        rng, secret, "export AWS_ACCESS_KEY_ID={s}", "aws_access_key_id = {s}", '"AccessKeyId": "{s}",'
    )


def aws_secret_key(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, B64, 40)
    return in_context(
        rng,
        secret,
        "aws_secret_access_key = {s}",
        "export AWS_SECRET_ACCESS_KEY={s}",
        '"aws_secret_access_key": "{s}"',
    )


def github_token(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.25:
        secret = f"github_pat_{pick(rng, ALNUM, 22)}_{pick(rng, ALNUM, 59)}"
    else:
        secret = f"gh{rng.choice('pousr')}_{pick(rng, ALNUM, 36)}"
    return in_context(
        rng,
        secret,
        "export GITHUB_TOKEN={s}",
        "git clone https://x-access-token:{s}@github.com/acme/api.git",
        "echo {s} | gh auth login --with-token",
    )


def gitlab_token(rng: random.Random) -> tuple[str, str]:
    secret = "glpat-" + pick(rng, URLSAFE, 20)
    return in_context(
        rng,
        secret,
        "GITLAB_TOKEN={s}",
        'curl --header "PRIVATE-TOKEN: {s}" https://gitlab.com/api/v4/projects',
    )


def slack_token(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.3:
        secret = f"xapp-1-A{pick(rng, UPPER_NUM, 10)}-{pick(rng, string.digits, 13)}-{pick(rng, HEX, 64)}"
    else:
        digits = f"{pick(rng, string.digits, 12)}-{pick(rng, string.digits, 13)}"
        secret = f"xox{rng.choice('bp')}-{digits}-{pick(rng, ALNUM, 24)}"
    return in_context(rng, secret, "SLACK_BOT_TOKEN={s}", 'client = WebClient(token="{s}")')


def slack_webhook(rng: random.Random) -> tuple[str, str]:
    secret = f"T{pick(rng, UPPER_NUM, 8)}/B{pick(rng, UPPER_NUM, 10)}/{pick(rng, ALNUM, 24)}"
    return in_context(
        rng,
        secret,
        'curl -X POST -d \'{"text": "deploy done"}\' https://hooks.slack.com/services/{s}',
        'SLACK_WEBHOOK_URL="https://hooks.slack.com/services/{s}"',
    )


def stripe_key(rng: random.Random) -> tuple[str, str]:
    secret = rng.choice(("sk_live_", "rk_live_", "sk_test_")) + pick(rng, ALNUM, rng.randint(24, 99))
    return in_context(rng, secret, "STRIPE_SECRET_KEY={s}", 'stripe.api_key = "{s}"')


def openai_key(rng: random.Random) -> tuple[str, str]:
    secret = "sk-proj-" + pick(rng, URLSAFE, 120) if rng.random() < 0.5 else "sk-" + pick(rng, ALNUM, 48)
    return in_context(rng, secret, "OPENAI_API_KEY={s}", 'client = OpenAI(api_key="{s}")')


def anthropic_key(rng: random.Random) -> tuple[str, str]:
    secret = f"sk-ant-api03-{pick(rng, URLSAFE, 93)}AA"
    return in_context(
        rng,
        secret,
        "export ANTHROPIC_API_KEY={s}",
        'curl https://api.anthropic.com/v1/messages -H "x-api-key: {s}"',
    )


def google_api_key(rng: random.Random) -> tuple[str, str]:
    secret = "AIza" + pick(rng, URLSAFE, 35)
    return in_context(
        rng,
        secret,
        "GOOGLE_API_KEY={s}",
        "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={s}",
    )


def google_oauth_secret(rng: random.Random) -> tuple[str, str]:
    secret = "GOCSPX-" + pick(rng, URLSAFE, 28)
    return in_context(rng, secret, '"client_secret": "{s}",', "GOOGLE_CLIENT_SECRET={s}")


def npm_token(rng: random.Random) -> tuple[str, str]:
    secret = "npm_" + pick(rng, ALNUM, 36)
    return in_context(rng, secret, "//registry.npmjs.org/:_authToken={s}", "NPM_TOKEN={s}")


def pypi_token(rng: random.Random) -> tuple[str, str]:
    secret = "pypi-AgEIcHlwaS5vcmc" + pick(rng, URLSAFE, rng.randint(60, 150))
    return in_context(rng, secret, "password = {s}", "twine upload -u __token__ -p {s} dist/*")


def twilio_api_key(rng: random.Random) -> tuple[str, str]:
    secret = "SK" + pick(rng, HEX, 32)
    return in_context(rng, secret, "TWILIO_API_KEY={s}", 'client = Client("{s}", api_secret, account_sid)')


def sendgrid_key(rng: random.Random) -> tuple[str, str]:
    secret = f"SG.{pick(rng, URLSAFE, 22)}.{pick(rng, URLSAFE, 43)}"
    return in_context(rng, secret, "SENDGRID_API_KEY={s}", 'sg = SendGridAPIClient("{s}")')


def mailgun_key(rng: random.Random) -> tuple[str, str]:
    secret = "key-" + pick(rng, HEX, 32)
    return in_context(
        rng,
        secret,
        "MAILGUN_API_KEY={s}",
        "curl -s --user 'api:{s}' https://api.mailgun.net/v3/mg.example.com/messages",
    )


def azure_storage_key(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, B64, 86) + "=="
    account = pick(rng, string.ascii_lowercase, 10)
    return secret, (
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;'
        f'AccountName={account};AccountKey={secret};EndpointSuffix=core.windows.net"'
    )


def huggingface_token(rng: random.Random) -> tuple[str, str]:
    secret = "hf_" + pick(rng, ALNUM, 34)
    return in_context(rng, secret, "HF_TOKEN={s}", "huggingface-cli login --token {s}")


def digitalocean_token(rng: random.Random) -> tuple[str, str]:
    secret = "dop_v1_" + pick(rng, HEX, 64)
    return in_context(rng, secret, "DIGITALOCEAN_ACCESS_TOKEN={s}", "doctl auth init -t {s}")


def shopify_token(rng: random.Random) -> tuple[str, str]:
    secret = "shpat_" + pick(rng, HEX, 32)
    return in_context(
        rng, secret, "SHOPIFY_ACCESS_TOKEN={s}", 'curl -H "X-Shopify-Access-Token: {s}" https://shop.example'
    )


def databricks_token(rng: random.Random) -> tuple[str, str]:
    secret = "dapi" + pick(rng, HEX, 32)
    return in_context(rng, secret, "DATABRICKS_TOKEN={s}", "token = {s}")


def heroku_api_key(rng: random.Random) -> tuple[str, str]:
    raw = "".join(rng.choice(HEX) for _ in range(32))
    secret = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
    return in_context(rng, secret, "HEROKU_API_KEY={s}", 'heroku_api_key: "{s}"')


def telegram_bot_token(rng: random.Random) -> tuple[str, str]:
    secret = f"{rng.randint(10_000_000, 9_999_999_999)}:AA{pick(rng, URLSAFE, 33)}"
    return in_context(rng, secret, "TELEGRAM_BOT_TOKEN={s}", "curl https://api.telegram.org/bot{s}/getMe")


def vault_token(rng: random.Random) -> tuple[str, str]:
    secret = "hvs." + pick(rng, URLSAFE, 24)
    return in_context(rng, secret, "export VAULT_TOKEN={s}", "vault login {s}")
