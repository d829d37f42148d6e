"""A memory named by the start of its id, as people read ids off the CLI's tables (``e98b4a82``).

``codememory recall`` prints the first eight characters of each memory's id, so those are what a
person types next (``codememory history e98b4a82``, ``supersede``, ``forget`` ...). Every call that
names an existing memory takes the whole id or, as git does for commits, the start of one: at least
``MIN_PREFIX`` hex digits that begin exactly one of the caller's memories (any state but forgotten).
None is ``NotFound``; several is ``InvalidArgument`` naming them, so the caller can give more.

Only the caller's tenant is searched, by the index's filter, so a prefix never reveals that another
tenant has a memory starting with it. Memory ids are not indexed (``vectorstore.port``): the engine
reads the tenant's payloads for the prefix, which is a person's command, not a hot path.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import uuid

from codememory.gateway.errors import InvalidArgument, NotFound
from codememory.memory import LIVE_STATES
from codememory.vectorstore import IndexFilter, VectorIndex

MIN_PREFIX = 6
_PREFIX = re.compile(r"[0-9a-f][0-9a-f-]*")
SHOWN = 3  # candidates named when a prefix is ambiguous


def canonical_memory_id(given: str) -> str:
    """A whole memory id in the one spelling every id is kept in (a memory ``Store`` and ``Import``
    create, and every id a lookup is given); ``InvalidArgument`` if it is not a UUID."""
    try:
        return str(uuid.UUID(given.strip()))
    except (ValueError, AttributeError) as exc:
        raise InvalidArgument("memory_id must be a UUID") from exc


def memory_id_named(index: VectorIndex, tenant: str, given: str) -> str:
    """The whole id of the caller's memory that ``given`` names: itself when it is a UUID (in its
    canonical form), else the one memory whose id starts with it."""
    text = given.strip().lower()
    with contextlib.suppress(InvalidArgument):
        return canonical_memory_id(text)
    digits = text.replace("-", "")
    if len(digits) < MIN_PREFIX or len(text) >= 36 or not _PREFIX.fullmatch(text):
        raise InvalidArgument(
            f"memory_id must be a UUID or the start of one (at least {MIN_PREFIX} hex digits), got {given!r}"
        )
    flt = IndexFilter(
        equals={"tenant": tenant}, any_of={"state": list(LIVE_STATES)}, prefixes={"memory_id": text}
    )
    found = [
        str(p.payload.get("memory_id", "")) for p in itertools.islice(index.scroll(flt, batch=SHOWN), SHOWN)
    ]
    if not found:
        raise NotFound(f"no memory id starts with {text}")
    if len(found) > 1:
        more = "" if len(found) < SHOWN else ", ..."
        raise InvalidArgument(
            f"{text} starts more than one memory id ({', '.join(found)}{more}): give more of it"
        )
    return found[0]


__all__ = ["MIN_PREFIX", "canonical_memory_id", "memory_id_named"]
