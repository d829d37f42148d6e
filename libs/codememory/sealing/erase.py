"""Erasure: destroying the keys of a user, a session or a memory, and saying which memories went.

``plan`` finds the records an erasure covers without destroying anything, so the caller can append
its events first (a crash in between leaves the keys, and erasing again finds the same records);
``destroy`` then destroys their keys. After it no copy of LOG, whether the live stream, a raw read of
its files or a backup, holds those records' text in a form anyone can read.

- ``memory``: the memory's record key.
- ``session``: the session's record key and the keys of every memory, insight and summary made from it.
- ``user``: the user's key encryption key (every record wrapped by it at once), the record keys under
  it, and the user's pointer, so a user seen again starts with a new key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codememory.sealing.keys import KeyRing, StoredRecord, decode_stored

__all__ = ["ErasePlan", "Scope", "destroy", "late", "plan"]

Scope = Literal["user", "session", "memory"]


@dataclass(frozen=True)
class ErasePlan:
    tenant: str
    scope: Scope
    records: tuple[str, ...]  # record ids (``m:<memory_id>``, ``s:<session_id>``)
    keys: tuple[str, ...]  # store names to destroy, records last but one, the user's kek and pointer last

    @property
    def memory_ids(self) -> tuple[str, ...]:
        return tuple(sorted(r[2:] for r in self.records if r.startswith("m:")))

    @property
    def session_ids(self) -> tuple[str, ...]:
        return tuple(sorted(r[2:] for r in self.records if r.startswith("s:")))


def _records(ring: KeyRing, tenant: str) -> list[StoredRecord]:
    stored = (decode_stored(value) for value in ring.store.values(tenant))
    return [s for s in stored if isinstance(s, StoredRecord)]


def plan(ring: KeyRing, tenant: str, scope: Scope, subject: str) -> ErasePlan:
    """What erasing ``subject`` (a user, a session id or a memory id) of ``tenant`` destroys."""
    if scope == "memory":
        found = [f"m:{subject}"] if ring.store.get(tenant, f"rec:m:{subject}") is not None else []
        return ErasePlan(tenant, scope, tuple(found), tuple(f"rec:{r}" for r in found))
    if scope == "session":
        found = sorted(
            r.record for r in _records(ring, tenant) if r.session == subject or r.record == f"s:{subject}"
        )
        return ErasePlan(tenant, scope, tuple(found), tuple(f"rec:{r}" for r in found))
    pointer = ring.current_user_pointer(tenant, subject)
    if pointer is None:
        return ErasePlan(tenant, scope, (), ())
    name, kid = pointer
    found = sorted(r.record for r in _records(ring, tenant) if r.kek == kid)
    return ErasePlan(tenant, scope, tuple(found), (*(f"rec:{r}" for r in found), f"kek:{kid}", name))


def late(ring: KeyRing, erase: ErasePlan, subject: str) -> ErasePlan:
    """Records the erasure covers that were created after ``erase`` was planned (a writer that sealed
    under the user's key or in the session in the meantime): the second pass destroys them too."""
    if erase.scope == "memory":
        return ErasePlan(erase.tenant, erase.scope, (), ())
    kek = next((name[4:] for name in erase.keys if name.startswith("kek:")), "")
    found = sorted(
        r.record
        for r in _records(ring, erase.tenant)
        if r.record not in erase.records
        and (r.kek == kek if erase.scope == "user" else r.session == subject or r.record == f"s:{subject}")
    )
    return ErasePlan(erase.tenant, erase.scope, tuple(found), tuple(f"rec:{r}" for r in found))


def destroy(ring: KeyRing, erase: ErasePlan) -> int:
    """Destroy the planned keys; the number that still existed (0 when erased before)."""
    destroyed = sum(ring.store.destroy(erase.tenant, name) for name in erase.keys)
    ring.refresh()
    return destroyed
