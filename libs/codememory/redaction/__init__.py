"""Secret redaction for everything codememory records.

Why it exists: hook payloads (prompts, shell commands and output, file contents) go into an
immutable event log, and secrets must never reach it. This package runs twice: inside the
short-lived hook client (so it imports only the standard library, and compiles each pattern once
per process, the first time a text could match it) and again in the ingest service, through
``clean_text`` / ``clean``.

A secret is replaced by ``[REDACTED:<kind>]`` and the text around it is kept
(``postgres://user:[REDACTED:password_in_url]@host/db``). ``codememory.redaction.testing`` holds a
generator of realistic secrets for tests.
"""

from codememory.redaction.assignment import is_secret_key
from codememory.redaction.blocks import (
    INJECTED_CLOSE,
    INJECTED_OPEN,
    is_injected_only,
    strip_injected,
    strip_private,
)
from codememory.redaction.deep import SECRET_FIELD, clean, clean_text, redact
from codememory.redaction.rule import REDACTED_PREFIX, marker
from codememory.redaction.text import KINDS, count_secrets, redact_text

__all__ = [
    "INJECTED_CLOSE",
    "INJECTED_OPEN",
    "KINDS",
    "REDACTED_PREFIX",
    "SECRET_FIELD",
    "clean",
    "clean_text",
    "count_secrets",
    "is_injected_only",
    "is_secret_key",
    "marker",
    "redact",
    "redact_text",
    "strip_injected",
    "strip_private",
]
