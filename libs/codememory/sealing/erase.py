"""Erasure: destroying the keys of a user, a session or a memory, and saying which memories went.

``plan`` finds the records an erasure covers without destroying anything, so the caller can append
its events first (a crash in between leaves the keys, and erasing again finds the same records);
``destroy`` then destroys their keys. After it no copy of LOG, whether the live stream, a raw read of
its files or a backup, holds those records' text in a form anyone can read.

- ``memory``: the memory's record key, and when the memory is an event of an agent session (a prompt,
  a tool's output: its id is the event's) the event's leaf of the session's tree is punctured, so
  its text and its vector go and every other event of the session stays readable. A session record
  from before per-event keys has one key for all its events: ``refused_session`` names it.
- ``session``: the session's record key and the keys of every memory, insight and summary made from it.
- ``user``: the user's key encryption key (every record wrapped by it at once), the record keys under
  it, and the user's pointer, so a user seen again starts with a new key.

Whatever the scope, ``derived`` adds every record whose text repeats an erased memory's (an insight,
a session summary: its key names its ``sources``), and what is derived from those in turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from codememory.sealing.keys import KeyRing
from codememory.sealing.stored import StoredRecord, decode_stored, record_name

__all__ = ["ErasePlan", "Scope", "derived", "destroy", "late", "plan"]

Scope = Literal["user", "session", "memory"]


@dataclass(frozen=True)
class ErasePlan:
    tenant: str
    scope: Scope
    records: tuple[str, ...]  # record ids (``m:<memory_id>``, ``s:<session_id>``)
    keys: tuple[str, ...]  # store names to destroy, records last but one, the user's kek and pointer last
    punctures: tuple[tuple[str, str], ...] = ()  # (session record, leaf): one event of a session
    refused_session: str = ""  # the memory's session has one key for all its events (sealed before)

    @property
    def memory_ids(self) -> tuple[str, ...]:
        return tuple(sorted(r[2:] for r in self.records if r.startswith("m:")))

    @property
    def session_ids(self) -> tuple[str, ...]:
        return tuple(sorted(r[2:] for r in self.records if r.startswith("s:")))

    def plus(self, more: ErasePlan) -> ErasePlan:
        """This plan and ``more``'s records and keys (theirs destroyed first: a user's key stays last)."""
        keys = tuple(k for k in more.keys if k not in self.keys)
        return ErasePlan(
            self.tenant,
            self.scope,
            tuple(sorted({*self.records, *more.records})),
            (*keys, *self.keys),
            self.punctures,
            self.refused_session,
        )


def _records(ring: KeyRing, tenant: str) -> list[StoredRecord]:
    stored = (decode_stored(value) for value in ring.store.values(tenant))
    return [s for s in stored if isinstance(s, StoredRecord)]


def _names(records: list[StoredRecord]) -> tuple[str, ...]:
    return tuple(sorted({record_name(r.record, r.epoch) for r in records}))


def _memory(ring: KeyRing, tenant: str, subject: str, session: str, companions: tuple[str, ...]) -> ErasePlan:
    own = ring.live_record(tenant, f"m:{subject}")
    found = [own] if own is not None else []
    # an event of the session has no record of its own, or one its refinements made (no session):
    # a stored memory, an insight or a summary names its session in its own record
    is_event = own is None or not own.session
    event_of = ring.live_record(tenant, f"s:{session}") if session and is_event else None
    if event_of is not None and not event_of.tree:
        return ErasePlan(tenant, "memory", (), (), refused_session=session)
    leaves = (subject, *companions)
    punctures = tuple((event_of.record, leaf) for leaf in leaves) if event_of is not None else ()
    return ErasePlan(tenant, "memory", tuple(r.record for r in found), _names(found), punctures)


def plan(
    ring: KeyRing,
    tenant: str,
    scope: Scope,
    subject: str,
    session: str = "",
    companions: tuple[str, ...] = (),
) -> ErasePlan:
    """What erasing ``subject`` (a user, a session id or a memory id) of ``tenant`` destroys;
    ``session``: for a memory, the agent session it was recorded in, if any; ``companions``: other
    leaves of that session that repeat its text (``fields.companion_leaves``)."""
    if scope == "memory":
        return _memory(ring, tenant, subject, session, companions)
    if scope == "session":
        live = [r for r in _records(ring, tenant) if r.session == subject or r.record == f"s:{subject}"]
        return ErasePlan(tenant, scope, tuple(sorted({r.record for r in live})), _names(live))
    pointer = ring.current_user_pointer(tenant, subject)
    if pointer is None:
        return ErasePlan(tenant, scope, (), ())
    name, kid = pointer
    live = [r for r in _records(ring, tenant) if r.kek == kid]
    records = tuple(sorted({r.record for r in live}))
    return ErasePlan(tenant, scope, records, (*_names(live), f"kek:{kid}", name))


def derived(ring: KeyRing, erase: ErasePlan, memory_ids: Iterable[str]) -> ErasePlan:
    """The records, not in ``erase`` yet, whose text repeats one of ``memory_ids`` (their ``sources``),
    and those derived from them in turn: ``erase``'s scope, these records and their keys."""
    gone = set(memory_ids)
    found: list[StoredRecord] = []
    candidates = [r for r in _records(ring, erase.tenant) if r.sources and r.record not in erase.records]
    while True:
        more = [r for r in candidates if not gone.isdisjoint(r.sources)]
        if not more:
            break
        found += more
        gone |= {r.record[2:] for r in more if r.record.startswith("m:")}
        candidates = [r for r in candidates if r not in more]
    return ErasePlan(erase.tenant, erase.scope, tuple(sorted({r.record for r in found})), _names(found))


def late(ring: KeyRing, erase: ErasePlan, subject: str) -> ErasePlan:
    """Records the erasure covers that were created after ``erase`` was planned (a writer that sealed
    under the user's key or in the session in the meantime): the second pass destroys them too."""
    if erase.scope == "memory":
        return ErasePlan(erase.tenant, erase.scope, (), ())
    kek = next((name[4:] for name in erase.keys if name.startswith("kek:")), "")
    found = [
        r
        for r in _records(ring, erase.tenant)
        if record_name(r.record, r.epoch) not in erase.keys
        and (r.kek == kek if erase.scope == "user" else r.session == subject or r.record == f"s:{subject}")
    ]
    return ErasePlan(erase.tenant, erase.scope, tuple(sorted({r.record for r in found})), _names(found))


def destroy(ring: KeyRing, erase: ErasePlan) -> int:
    """Destroy the planned keys and puncture the planned leaves; the number of keys that still existed
    and leaves that were still readable (0 when erased before)."""
    destroyed = sum(ring.store.destroy(erase.tenant, name) for name in erase.keys)
    destroyed += sum(ring.puncture(erase.tenant, record, leaf) for record, leaf in erase.punctures)
    ring.refresh()
    return destroyed
