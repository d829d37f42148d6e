"""Forgetting: an edit that takes back what an earlier, instructed edit of the same session did.

The CodeMEM paper's forgetting detection, on AST units (``units``). A turn is a user prompt and the
edits the agent made for it. A later edit (in a later turn) *undoes* an earlier turn's edit of the
same file when it

* renames back: the earlier edit renamed ``a`` to ``b`` and this one brings ``a`` back (dropping ``b``,
  or using ``a`` again where ``b`` is now the name);
* restores: it adds a unit the earlier edit removed (a removed check put back, a default changed back);
* drops: it removes a parameter, argument, decorator or guard the earlier edit added (an added parameter
  dropped, an added check removed) with nothing of the same kind and key or nearly the same text in its
  place, and without the unit turning up in any later edit (code moved into a helper is a continuation).
  Other code an earlier turn added and a later one removes is refactoring as often as not: silent.

Edits that continue or refine the instructed change stay silent: a unit replaced by one of the same key
(a parameter given another default, a check with a longer message) is a refinement. A turn whose own
prompt asks to revert or undo is silent too: then the user asked for it. Pure: no I/O, no clock.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from codememory.clip import clip
from codememory.reviews.units import Shape, Unit, shape_of, tokens

__all__ = ["Edit", "Finding", "Turn", "detect", "message"]

_REVERT = re.compile(
    r"\b(revert|undo|roll ?back|put (it |them )?back|restore|go back|change (it )?back|rename (it )?back|"
    r"back to (the )?(old|original|previous)|as it was)\b",
    re.IGNORECASE,
)
# what an instruction's change is made of, when it is taken back: a contract (parameters, arguments,
# decorators) or a guard dropped; anything but an import put back (imports come and go with use, and
# code an earlier turn added and a later one removes is usually refactoring, not forgetting)
_DROPPED = frozenset({"param", "arg", "decorator", "check"})
_RESTORED = frozenset({"stmt", "check", "param", "arg", "decorator", "def"})
_SIMILAR = 0.6  # a replacement this close (token sequence ratio) to a dropped unit refines it
_FOCUSED = 15  # at most this many units added: an instructed change, not code written from scratch
_MIN_OLD_NAME = 4  # a name the edit only uses again (not renamed back) must be at least this long


@dataclass(frozen=True, slots=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Turn:
    index: int
    prompt: str
    edits: tuple[Edit, ...]
    prompt_id: str = ""  # the prompt's event id (a finding quoting it is sealed with its key)


@dataclass(frozen=True, slots=True)
class Finding:
    """What an edit undid, and the instruction whose change it was."""

    turn: int
    instruction: str
    path: str
    undone: tuple[str, ...]
    instruction_id: str = ""


@dataclass(frozen=True, slots=True)
class _Change:
    old: Shape
    new: Shape

    @property
    def removed(self) -> set[Unit]:
        return set((self.old.units - self.new.units).keys())

    @property
    def added(self) -> set[Unit]:
        return set((self.new.units - self.old.units).keys())


@lru_cache(maxsize=4096)
def _change(edit: Edit) -> _Change:
    return _Change(shape_of(edit.old, edit.path), shape_of(edit.new, edit.path))


def _same_file(a: str, b: str) -> bool:
    a, b = a.strip("/"), b.strip("/")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _renames(change: _Change) -> dict[str, str]:
    """``old -> new`` names of an edit that renamed: aligned identifiers where one name replaced another."""
    old_ids, new_ids = change.old.identifiers, change.new.identifiers
    gone, came = set(old_ids) - set(new_ids), set(new_ids) - set(old_ids)
    pairs: dict[str, str] = {}
    matcher = difflib.SequenceMatcher(a=old_ids, b=new_ids, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1:
            for a, b in zip(old_ids[i1:i2], new_ids[j1:j2], strict=True):
                if a in gone and b in came:
                    pairs.setdefault(a, b)
    return pairs


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(a=tokens(a), b=tokens(b), autojunk=False).ratio()


def _undone(earlier: _Change, edit: _Change, later_added: set[str]) -> list[str]:
    found: list[str] = []
    old_count, new_count = edit.old.identifiers.count, edit.new.identifiers.count
    for a, b in _renames(earlier).items():
        if new_count(a) > old_count(a):
            if old_count(b) > new_count(b):
                found.append(f"renamed `{b}` back to `{a}`")
            elif len(a) >= _MIN_OLD_NAME and new_count(b) == 0:
                found.append(f"used the old name `{a}` again (it was renamed to `{b}`)")
    earlier_removed, earlier_added, earlier_after = earlier.removed, earlier.added, earlier.new.units
    added, removed = edit.added, edit.removed
    owners = {(u.kind, u.text): u.owner for u in earlier_removed}
    for unit in sorted(added, key=lambda u: u.text):
        restored = unit.kind in _RESTORED and unit in earlier_removed and unit not in earlier_after
        if restored and owners.get((unit.kind, unit.text), unit.owner) == unit.owner:  # the same function's
            found.append(f"put back `{clip(unit.text, 80)}`")
    if len(earlier_added) > _FOCUSED:
        return found  # an earlier turn that wrote a whole block: later removals in it are refactoring
    for unit in sorted(removed & earlier_added, key=lambda u: u.text):
        if unit.kind not in _DROPPED or unit.text in later_added:
            continue  # not a contract or a guard, or moved rather than dropped
        if unit.kind == "arg" and not unit.owner:
            continue  # a pair of a dict or object that is no call's argument: data, not a contract
        if unit.owner and unit.owner not in edit.new.identifiers:
            continue  # its function or call went with it: that removes a function, not a parameter
        replaced = any(
            other.kind == unit.kind and (other.key == unit.key or _ratio(other.text, unit.text) >= _SIMILAR)
            for other in added
        )
        if not replaced:
            found.append(f"removed `{clip(unit.text, 80)}`")
    return found


def detect(history: Sequence[Turn], prompt: str, edit: Edit, since: Sequence[Edit] = ()) -> Finding | None:
    """Whether ``edit`` undoes an edit of an earlier turn of ``history``; None when it does not.

    ``prompt`` is the current turn's instruction (a revert it asks for is not forgetting); ``since``
    are the current turn's edits before this one (where code an earlier turn added may have moved).
    """
    if _REVERT.search(prompt):
        return None
    change = _change(edit)
    if not (change.old.units or change.new.units or change.old.identifiers or change.new.identifiers):
        return None  # nothing parsed: a language not supported here, or no code
    best: Finding | None = None
    for position, turn in enumerate(history):
        if not turn.prompt.strip():
            continue
        later = [e for t in history[position + 1 :] for e in t.edits] + [*since, edit]
        later_added = {u.text for e in later if _same_file(e.path, edit.path) for u in _change(e).added}
        for earlier in turn.edits:
            if not _same_file(earlier.path, edit.path):
                continue
            undone = _undone(_change(earlier), change, later_added)
            if undone and (best is None or len(undone) >= len(best.undone)):
                best = Finding(turn.index, turn.prompt, edit.path, tuple(undone), turn.prompt_id)
    return best


def message(finding: Finding) -> str:
    """What the agent reads: the instruction, and what this edit took back."""
    what = "; ".join(finding.undone[:4])
    instruction = clip(" ".join(finding.instruction.split()), 240)
    return (
        f"codememory: this edit to {finding.path} undoes part of an earlier instructed change. "
        f'The user asked (turn {finding.turn}): "{instruction}". This edit {what}. '
        "If that was not intended, restore the instructed change; if the user asked for it, carry on."
    )
