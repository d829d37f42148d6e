from datetime import UTC, datetime

import pytest

from codememory.codefacts import (
    DuplicateQualnameError,
    InvalidCodeFactError,
    decode_fact,
    encode_fact,
    fact_envelope,
    redact_fact,
)
from codememory.events import CommitRecorded, FileDeleted, Symbol, SymbolsExtracted
from codememory.redaction import clean_text

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"


def _symbols(**overrides: object) -> SymbolsExtracted:
    fields: dict[str, object] = {
        "repo": "shop",
        "path": "app/pay.py",
        "content_hash": "abc",
        "language": "python",
        "module": "app.pay",
        "symbols": (
            Symbol(
                qualname="app.pay.charge",
                name="charge",
                kind="function",
                start_line=1,
                end_line=3,
                signature="def charge(amount):",
                excerpt=f'    key = "{KEY}"',
            ),
        ),
    }
    fields.update(overrides)
    return SymbolsExtracted(**fields)  # type: ignore[arg-type]


def test_round_trip_keeps_every_field() -> None:
    fact = _symbols()
    assert decode_fact(encode_fact(fact)) == fact


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b'{"type": "memory.stored", "memory_id": "m", "text": "t"}',
        b'{"type": "symbols.extracted", "repo": "", "path": "a.py", "content_hash": "h"}',
        b'{"type": "symbols.extracted", "repo": "r", "path": "/etc/passwd", "content_hash": "h"}',
        b'{"type": "symbols.extracted", "repo": "r", "path": "a/../../b.py", "content_hash": "h"}',
        b'{"type": "symbols.extracted", "repo": "r", "path": "a.py", "content_hash": ""}',
        b'{"type": "commit.recorded", "repo": "r", "sha": " "}',
    ],
)
def test_refuses_what_is_not_a_valid_code_fact(data: bytes) -> None:
    with pytest.raises(InvalidCodeFactError):
        decode_fact(data)


def test_refuses_symbols_that_repeat_a_qualname() -> None:
    charge = _symbols().symbols[0]
    again = Symbol(qualname="app.pay.charge", name="charge", kind="function", start_line=5, end_line=6)
    numbered = Symbol(qualname="app.pay.charge#2", name="charge", kind="function", start_line=5, end_line=6)
    assert len(decode_fact(encode_fact(_symbols(symbols=(charge, numbered)))).symbols) == 2
    with pytest.raises(DuplicateQualnameError) as caught:
        decode_fact(encode_fact(_symbols(symbols=(charge, numbered, again))))
    assert caught.value.qualnames == ["app.pay.charge"] and caught.value.path == "app/pay.py"
    assert isinstance(caught.value, InvalidCodeFactError) and "app.pay.charge" in str(caught.value)


def test_refuses_oversized_facts() -> None:
    with pytest.raises(InvalidCodeFactError, match="exceeds"):
        decode_fact(b" " * 1_000_000)


def test_redaction_reaches_excerpts_and_commit_messages() -> None:
    cleaned = redact_fact(_symbols(), clean_text)
    assert isinstance(cleaned, SymbolsExtracted)
    assert KEY not in encode_fact(cleaned).decode()
    commit = redact_fact(CommitRecorded(repo="shop", sha="a1", message=f"rotate {KEY}"), clean_text)
    assert isinstance(commit, CommitRecorded)
    assert KEY not in commit.message


def test_event_ids_dedupe_retries_but_not_later_observations() -> None:
    t1, t2 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    fact = FileDeleted(repo="shop", path="a.py")
    assert (
        fact_envelope(fact, tenant="t", observed_at=t1).event_id
        == fact_envelope(fact, tenant="t", observed_at=t1).event_id
    )
    assert (
        fact_envelope(fact, tenant="t", observed_at=t1).event_id
        != fact_envelope(fact, tenant="t", observed_at=t2).event_id
    )
    assert (
        fact_envelope(fact, tenant="t", observed_at=t1).event_id
        != fact_envelope(fact, tenant="u", observed_at=t1).event_id
    )
    commit = CommitRecorded(repo="shop", sha="a1")
    assert (
        fact_envelope(commit, tenant="t", observed_at=t1).event_id
        == fact_envelope(commit, tenant="t", observed_at=t2).event_id
    )
