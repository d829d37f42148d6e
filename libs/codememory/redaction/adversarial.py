"""Adversarial single lines for every redaction rule, and how redaction time grows with their length.

For each rule, its triggers (gates or anchors: what makes the engine try the pattern) are built into
lines a regular expression could backtrack on: the trigger repeated, the trigger followed by a long
run of characters the pattern accepts but never terminates, near-misses separated by the characters
that end a match. ``scaling`` times redaction of each line at n and 2n characters: a linear engine
takes about twice as long, a quadratic one four times. The security tests assert the ratio; the
security benchmark reports the slowest input and the largest ratio.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from codememory.redaction.text import RULES, redact_text

_FILLERS = ("a", "A1", "0", "=", ":", "-", "_", ".", "/", " ", "'", "\t")


def _units(trigger: str) -> Iterator[tuple[str, str]]:
    yield "repeated", trigger
    yield "repeated, spaced", trigger + " "
    for filler in _FILLERS:
        yield f"{filler!r} after", trigger + filler * 4


def adversarial_lines(n: int) -> Iterator[tuple[str, str, str]]:
    """(rule kind, shape, line of about ``n`` characters) for every rule and shape."""
    for rule in RULES:
        for trigger in rule.gates or rule.anchors:
            for shape, unit in _units(trigger):
                yield rule.kind, f"{trigger!r} {shape}", (unit * (n // len(unit) + 1))[:n]
            for filler in _FILLERS:  # one trigger, then a run that never ends the match
                yield rule.kind, f"{trigger!r} then {filler!r}*n", (trigger + filler * n)[:n]


@dataclass(frozen=True)
class Scaling:
    kind: str
    shape: str
    seconds_n: float
    seconds_2n: float

    @property
    def ratio(self) -> float:
        return self.seconds_2n / max(self.seconds_n, 1e-6)


def redaction_seconds(text: str, repeat: int = 2) -> float:
    """The fastest of ``repeat`` redactions of ``text`` (the least disturbed by other work)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        redact_text(text)
        best = min(best, time.perf_counter() - start)
    return best


def scaling(n: int = 20_000, repeat: int = 3) -> list[Scaling]:
    doubled = dict(((k, s), line) for k, s, line in adversarial_lines(2 * n))
    return [
        Scaling(
            kind, shape, redaction_seconds(line, repeat), redaction_seconds(doubled[(kind, shape)], repeat)
        )
        for kind, shape, line in adversarial_lines(n)
    ]
