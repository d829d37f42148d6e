"""Code facts on the wire: how what a client learned about its code becomes events in LOG.

``codememory index`` and the post-commit hook read the code where it lives (the developer's machine)
and send facts to the gateway; the graph service does the same for files an agent edited. Both paths
go through this package, so a fact is validated, redacted and named the same way whoever found it.
"""

from codememory.codefacts.wire import (
    CodeFact,
    DuplicateQualnameError,
    InvalidCodeFactError,
    decode_fact,
    encode_fact,
    fact_envelope,
    redact_fact,
)

__all__ = [
    "CodeFact",
    "DuplicateQualnameError",
    "InvalidCodeFactError",
    "decode_fact",
    "encode_fact",
    "fact_envelope",
    "redact_fact",
]
