"""An ``IndexFilter`` evaluated on a payload in Python, with the engine's semantics, for cached reads.

The payload cache answers reads without the engine, so it must decide what the engine would: a
field that holds a list matches when any element does (``equals``, ``any_of``, ``ranges``), and
``not_equals`` excludes such a point; ``prefixes`` match a string (or a list's string) that starts
with the prefix; a missing field passes ``not_equals`` and fails everything else; ``any_of`` with an
empty list matches nothing. Only filters whose values are strings (and numeric ranges, and ids) are
decided here: ``supported`` says so, and anything else is left to the
engine, where an int against a float or a bool against an int has its own rules. The contract suite
runs every filter case through the cache and the engines alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codememory.vectorstore.port import IndexFilter

__all__ = ["matches", "supported"]


def supported(flt: IndexFilter) -> bool:
    """True when every ``equals`` / ``not_equals`` value is a string (``any_of`` lists always are)."""
    return all(isinstance(v, str) for v in flt.equals.values()) and all(
        isinstance(v, str) for v in flt.not_equals.values()
    )


def _elements(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _has(value: Any, wanted: str) -> bool:
    return any(isinstance(e, str) and e == wanted for e in _elements(value))


def _in_range(value: Any, low: float | None, high: float | None) -> bool:
    for e in _elements(value):
        if isinstance(e, bool) or not isinstance(e, int | float):
            continue
        if (low is None or e >= low) and (high is None or e <= high):
            return True
    return False


def matches(payload: Mapping[str, Any], flt: IndexFilter) -> bool:
    """Whether a point with ``payload`` passes ``flt``'s field conditions (ids are the caller's: the
    cache is keyed by id). Only for ``supported`` filters."""
    for key, wanted in flt.equals.items():
        if key not in payload or not _has(payload[key], str(wanted)):
            return False
    for key, options in flt.any_of.items():
        if key not in payload or not any(_has(payload[key], o) for o in options):
            return False
    for key, unwanted in flt.not_equals.items():
        if key in payload and _has(payload[key], str(unwanted)):
            return False
    for key, (low, high) in flt.ranges.items():
        if key not in payload or not _in_range(payload[key], low, high):
            return False
    for key, prefix in flt.prefixes.items():
        if key not in payload or not any(
            isinstance(e, str) and e.startswith(prefix) for e in _elements(payload[key])
        ):
            return False
    return True
