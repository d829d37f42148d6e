"""A memory as a line of an export: its state, the memory that state points to, its times.

Checked alike in two places: by ``codememory import`` before it sends anything (a bad line fails
before the store has changed) and by the gateway as it imports (the authority: any client can call
the RPC). One set of rules for both, here, in a module light enough for the CLI to import: no index,
no model (``codememory.memory`` pulls in the vector engine).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

# what an export writes: every state but forgotten (``codememory.memory.LIVE_STATES``, in export's order)
LINE_STATES = ("active", "deprecated", "archived", "superseded", "merged")


class LineStateError(ValueError):
    """A line's state is unknown, or lacks (or misnames) the memory it points to."""


@dataclass(frozen=True, kw_only=True)
class StateOf:
    """An imported memory's state as the export wrote it (``""`` or ``active``: nothing to make)."""

    state: str = ""
    superseded_by: str = ""
    superseded_at: float = 0.0  # seconds since the epoch; 0: when the event is folded
    merged_into: str = ""


def iso_seconds(value: str) -> float:
    """An ISO-8601 time (``Z`` or an offset; none: UTC) in seconds since the epoch; ``ValueError`` if it
    is not one."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def _linked(memory_id: str, value: str, what: str) -> str:
    try:
        linked = str(uuid.UUID(value))
    except ValueError as exc:
        raise LineStateError(f"{what} must be a memory id (a UUID), not {value!r}") from exc
    if linked == _canonical(memory_id):
        itself = what.replace("_", " ")
        raise LineStateError(f"{what} names the memory itself (a memory cannot be {itself} itself)")
    return linked


def _canonical(memory_id: str) -> str:
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return ""  # not an id (yet): the line's id is checked where it is used


def checked_state(memory_id: str, state: StateOf) -> StateOf:
    """``state`` keeping only the link its state uses, in canonical form (``memory_id``: the line's own,
    "" when not known yet); ``LineStateError`` if the state is unknown or its link missing or wrong."""
    if state.state and state.state not in LINE_STATES:
        raise LineStateError(f"state must be one of {', '.join(LINE_STATES)}, not {state.state!r}")
    if state.state == "superseded":
        if not state.superseded_by:
            raise LineStateError("a superseded memory needs superseded_by (the memory that replaced it)")
        return StateOf(
            state=state.state,
            superseded_by=_linked(memory_id, state.superseded_by, "superseded_by"),
            superseded_at=max(0.0, state.superseded_at),
        )
    if state.state == "merged":
        if not state.merged_into:
            raise LineStateError("a merged memory needs merged_into (the memory it was merged into)")
        return StateOf(state=state.state, merged_into=_linked(memory_id, state.merged_into, "merged_into"))
    return StateOf(state=state.state)


__all__ = ["LINE_STATES", "LineStateError", "StateOf", "checked_state", "iso_seconds"]
