"""Encoding, validation, redaction and naming of code facts (symbols, deletions, commits).

The facts travel as the event catalogue's own JSON (one schema, not a second one in protobuf). The
gateway decodes them into the catalogue's structs, so a malformed or foreign payload is refused with a
typed error before anything is appended. Text that comes from source code or commit messages (a
signature, docstring, excerpt, message) can hold a secret such as a hard-coded key: it is redacted
here, on the server side, so secrets never reach the immutable log whatever the client did.

Errors::

    InvalidCodeFactError          not one code fact the catalogue knows, too large, or inconsistent
    └── DuplicateQualnameError    a file's symbols repeat a qualname (the extractor numbers a
                                  redefinition ``qualname#2``, so a fact that repeats one is malformed)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime

import msgspec

from codememory.events import (
    CommitRecorded,
    Envelope,
    FileDeleted,
    SymbolsExtracted,
    deterministic_id,
    new_envelope,
)

CodeFact = SymbolsExtracted | FileDeleted | CommitRecorded

_decoder: msgspec.json.Decoder[CodeFact] = msgspec.json.Decoder(CodeFact)
_encoder = msgspec.json.Encoder()
MAX_FACT_BYTES = 900_000  # under the 1 MB NATS message limit with the envelope around it


class InvalidCodeFactError(ValueError):
    """The bytes are not one code fact the catalogue knows (or are too large to record)."""


class DuplicateQualnameError(InvalidCodeFactError):
    """Two symbols of one file have the same qualname: the graph and code search key symbols by it."""

    def __init__(self, path: str, qualnames: list[str]) -> None:
        self.path, self.qualnames = path, qualnames
        shown = ", ".join(qualnames[:5]) + (f" and {len(qualnames) - 5} more" if len(qualnames) > 5 else "")
        super().__init__(f"symbols of {path} repeat qualnames: {shown} (number a redefinition name#2)")


def encode_fact(fact: CodeFact) -> bytes:
    return _encoder.encode(fact)


def decode_fact(data: bytes) -> CodeFact:
    if len(data) > MAX_FACT_BYTES:
        raise InvalidCodeFactError(f"code fact of {len(data)} bytes exceeds {MAX_FACT_BYTES}")
    try:
        fact = _decoder.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidCodeFactError(f"not a code fact: {exc}") from exc
    _check(fact)
    return fact


def _check(fact: CodeFact) -> None:
    if not fact.repo.strip():
        raise InvalidCodeFactError("a code fact needs a repo")
    if isinstance(fact, CommitRecorded):
        if not fact.sha.strip():
            raise InvalidCodeFactError("a commit needs a sha")
        return
    path = fact.path
    if not path or path.startswith("/") or ".." in path.split("/"):
        raise InvalidCodeFactError(f"path must be repository-relative: {path!r}")
    if isinstance(fact, SymbolsExtracted):
        if not fact.content_hash:
            raise InvalidCodeFactError("extracted symbols need the file's content hash")
        counts = Counter(s.qualname for s in fact.symbols)
        if repeated := [q for q, n in counts.items() if n > 1]:
            raise DuplicateQualnameError(path, repeated)


def redact_fact(fact: CodeFact, clean: Callable[[str], str]) -> CodeFact:
    """The fact with every free text passed through ``clean`` (the redaction of ingest)."""
    if isinstance(fact, SymbolsExtracted):
        symbols = tuple(
            msgspec.structs.replace(
                s, signature=clean(s.signature), docstring=clean(s.docstring), excerpt=clean(s.excerpt)
            )
            for s in fact.symbols
        )
        return msgspec.structs.replace(fact, symbols=symbols)
    if isinstance(fact, CommitRecorded):
        return msgspec.structs.replace(fact, message=clean(fact.message))
    return fact


def _identity(fact: CodeFact, observed_at: datetime) -> tuple[str, ...]:
    if isinstance(fact, CommitRecorded):
        return ("commit", fact.repo, fact.sha)  # a commit is one fact forever
    # A file's state is a fact at a moment: deleted and restored with the same content is two facts.
    stamp = observed_at.isoformat()
    if isinstance(fact, SymbolsExtracted):
        return ("symbols", fact.repo, fact.path, fact.content_hash, fact.commit, stamp)
    return ("deleted", fact.repo, fact.path, fact.commit, stamp)


def fact_envelope(
    fact: CodeFact, *, tenant: str, observed_at: datetime, correlation_id: str = ""
) -> Envelope:
    """The envelope for a fact observed at ``observed_at``; a retried publish of it is stored once."""
    return new_envelope(
        fact,
        event_id=deterministic_id(tenant, *_identity(fact, observed_at)),
        tenant=tenant,
        occurred_at=observed_at,
        correlation_id=correlation_id,
    )
