"""redact_text: each kind of secret goes, the text around it stays, and ordinary code is left alone."""

from __future__ import annotations

import time

import pytest

from codememory.redaction import KINDS, count_secrets, redact_text
from codememory.redaction.testing import SECRET_KINDS, secret_corpus

KEEPS_CONTEXT = [
    ("postgres://user:pass@host/db", "postgres://user:[REDACTED:password_in_url]@host/db"),
    ("API_KEY=abc123def456ghi", "API_KEY=[REDACTED:dotenv_assignment]"),
    ("Authorization: Bearer xyz", "Authorization: Bearer [REDACTED:bearer_token]"),
    (
        'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" https://x.example',
        'curl -H "Authorization: Basic [REDACTED:basic_auth]" https://x.example',
    ),
    ('export DB_PASSWORD="s3cr3t pass"', 'export DB_PASSWORD="[REDACTED:dotenv_assignment]"'),
    ("password: hunter2hunter", "password: [REDACTED:secret_assignment]"),
    (
        'db.connect(user="app", password="pa55word!")',
        'db.connect(user="app", password="[REDACTED:secret_assignment]")',
    ),
    ('{"client_secret": "abc123XYZ"}', '{"client_secret": "[REDACTED:secret_assignment]"}'),
    ("X-Api-Key: abcd1234efgh", "X-Api-Key: [REDACTED:secret_assignment]"),
    ("mysql --password hunter22 app", "mysql --password [REDACTED:cli_secret_flag] app"),
    ("curl -u admin:hunter2 https://ci.example", "curl -u admin:[REDACTED:basic_auth] https://ci.example"),
    (
        "AccountName=acct;AccountKey=YWJjZGVmZ2hpams=;EndpointSuffix=core.windows.net",
        "AccountName=acct;AccountKey=[REDACTED:azure_storage_key];EndpointSuffix=core.windows.net",
    ),
    (
        "export GITHUB_TOKEN=ghp_" + "a1B2" * 9,
        "export GITHUB_TOKEN=[REDACTED:github_token]",
    ),
    ("key = AKIAIOSFODNN7EXAMPLE # aws", "key = [REDACTED:aws_access_key] # aws"),
]


@pytest.mark.parametrize(("text", "expected"), KEEPS_CONTEXT)
def test_redacts_only_the_secret(text: str, expected: str) -> None:
    assert redact_text(text) == expected


PEM_BODY = "MIIEowIBAAKCAQEAx4Yq1u8g3mV0lqXkq2Zt\nb2x5Y2hpbmVzZWNyZXRrZXltYXRlcmlhbA\n"


@pytest.mark.parametrize(
    "block",
    [
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}-----END OPENSSH PRIVATE KEY-----",
        f"-----BEGIN EC PRIVATE KEY-----\r\n{PEM_BODY}-----END EC PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\\n" + PEM_BODY.replace("\n", "\\n") + "-----END PRIVATE KEY-----",
        f"-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n{PEM_BODY}",  # cut short
    ],
)
def test_private_key_blocks(block: str) -> None:
    out = redact_text(f'cat id_rsa\n{block}\n"done"')
    assert "MIIEowIBAAKCAQEAx4Yq1u8g3mV0lqXkq2Zt" not in out
    assert "b2x5Y2hpbmVzZWNyZXRrZXltYXRlcmlhbA" not in out
    assert "[REDACTED:private_key]" in out
    assert out.startswith("cat id_rsa\n")
    assert out.endswith('"done"')


NOT_SECRETS = [
    "token_count = 3",
    "password_field = forms.CharField(max_length=128)",
    "def get_token(self):\n    return self._token",
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
    "tokenizer = 'bert'",
    "max_tokens: 512",
    '"input_tokens": 1234, "output_tokens": 88',
    "commit 3f1ef7c2860523314e2c1b07d95f1db5235f66b1",
    "session 94692e6b-0ceb-4981-bb88-c31d81e9e21e",
    "/Users/tomkwon/.claude/projects/-Users-tomkwon-Documents/transcript.jsonl",
    "token = self.token",
    "password = request.form['password']",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "secret = get_secret()",
    "token: str",
    "password: Optional[str] = None",
    "auth = HTTPBasicAuth(user, password)",
    "if password == confirm_password:",
    "export GITHUB_TOKEN=$GITHUB_TOKEN",
    'password = "${DB_PASSWORD}"',
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "token_url = 'https://oauth2.googleapis.com/token'",
    'token_type = "bearer"',
    "secret_name: prod/db/credentials",
    "GOOGLE_APPLICATION_CREDENTIALS=/home/me/keys/service-account.json",
    "PWD=/home/me/project",
    "bypass = True",
    "The token is expired, please log in again.",
    'headers = {"Authorization": f"Bearer {token}"}',
    "Authorization: Bearer $TOKEN",
    "docker run -u 1000:1000 image",
    "git push -u origin main",
    "print('shlex: token=' + repr(raw))",
    'auth_header = "Authorization"',
    'user_pass = "%s:%s" % (user, password)',
    "sk-learn is not a key, risk-assessment-framework-v2 neither",
    "pass\nreturn None",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert redact_text(text) == text
    assert count_secrets(text) == 0


def test_token_prefix_inside_a_word_is_not_a_token() -> None:
    text = "xghp_" + "a1B2" * 9
    assert redact_text(text) == text


def test_corpus_samples_are_redacted_with_their_kind() -> None:
    samples = secret_corpus(len(SECRET_KINDS) * 10, seed=11)
    for sample in samples:
        out = redact_text(sample.context)
        assert sample.secret not in out, sample
        assert f"[REDACTED:{sample.kind}]" in out, (sample, out)


def test_every_corpus_kind_is_a_known_kind() -> None:
    assert set(SECRET_KINDS) <= KINDS


def test_redaction_is_idempotent() -> None:
    for sample in secret_corpus(96, seed=3):
        once = redact_text(sample.context)
        assert redact_text(once) == once
        assert count_secrets(once) == 0


def test_count_secrets_counts_each_secret() -> None:
    samples = secret_corpus(40, seed=5)
    text = "\n".join(sample.context for sample in samples)
    assert count_secrets(text) >= len(samples)
    assert count_secrets("nothing to see here") == 0


def test_short_and_empty_texts() -> None:
    assert redact_text("") == ""
    assert redact_text("ok") == "ok"


def test_large_payload_is_fast() -> None:
    code = "\n".join(
        [
            "def handler(event, context):",
            "    token_count = len(event['tokens'])",
            "    key = f'{prefix}/{name}'",
            "    return {'statusCode': 200, 'body': json.dumps({'ok': True, 'path': '/api/v1/items'})}",
        ]
    )
    text = (code + "\n") * (200_000 // (len(code) + 1))
    redact_text(text)  # first call compiles the patterns this text needs
    started = time.perf_counter()
    out = redact_text(text)
    elapsed = time.perf_counter() - started
    assert out == text
    assert elapsed < 0.25  # ~5-10 ms on a laptop; generous for loaded CI machines
