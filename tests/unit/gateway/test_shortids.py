"""A memory named by the start of its id: what the CLI prints is what its commands take (``shortids``).

Over an in-memory log and a real Edge shard (``corestack``): the prefixes go through the same engine
filter a gateway uses, so a tenant's prefix never finds another tenant's memory.
"""

from __future__ import annotations

import pytest

from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import InvalidArgument, NotFound
from codememory.gateway.writes import NewMemory

FIRST = "e98b4a82-0000-4000-8000-000000000001"
TWIN = "e98b4a82-0000-4000-8000-000000000002"  # the same first eight characters
OTHER = "0c0ffee0-0000-4000-8000-000000000003"
THEIRS = "fa11bac0-0000-4000-8000-000000000004"


async def _stored(core: GatewayCore) -> None:
    for memory_id, text in ((FIRST, "retries: 3"), (TWIN, "retries: 5"), (OTHER, "we use pytest")):
        await core.store("t1", NewMemory(text=text, memory_id=memory_id))
    await core.store("t2", NewMemory(text="their memory", memory_id=THEIRS))


async def test_the_start_of_an_id_names_the_one_memory_it_begins(core: GatewayCore) -> None:
    await _stored(core)
    assert (await core.history("t1", "0c0ffe")).payload["memory_id"] == OTHER
    assert (await core.history("t1", " 0C0FFEE0-0000 ")).payload["memory_id"] == OTHER  # any case, hyphens
    assert (await core.history("t1", FIRST.upper())).payload["memory_id"] == FIRST  # a whole id
    written = await core.supersede("t1", FIRST, "0c0ffee0", "pytest replaced the retry rule")
    assert written.memory_id == FIRST
    assert (await core.history("t1", FIRST)).payload["superseded_by"] == OTHER
    refined = await core.refine("t1", "e98b4a82-0000-4000-8000-000000000002", text="retries: 6")
    assert refined.memory_id == TWIN
    forgotten = await core.forget("t1", "e98b4a82-0000-4000-8000-000000000002", "")
    assert forgotten.memory_id == TWIN
    assert (await core.history("t1", "e98b4a82")).payload["memory_id"] == FIRST  # the twin is gone
    with pytest.raises(NotFound):  # forgotten: named by nothing any more
        await core.history("t1", TWIN)


async def test_an_ambiguous_unknown_or_too_short_start_is_a_clear_error(core: GatewayCore) -> None:
    await _stored(core)
    with pytest.raises(InvalidArgument, match=f"e98b4a82 starts more than one memory id .*{FIRST}.*{TWIN}"):
        await core.history("t1", "e98b4a82")
    with pytest.raises(NotFound, match="no memory id starts with fa11bac0"):  # another tenant's
        await core.history("t1", "fa11bac0")
    assert (await core.history("t2", "fa11bac0")).payload["memory_id"] == THEIRS
    for bad in ("e98b4", "not-an-id", "e98b4a82-0000-4000-8000-0000000000019"):
        with pytest.raises(InvalidArgument, match="the start of one"):
            await core.history("t1", bad)
    with pytest.raises(InvalidArgument, match="the start of one"):
        await core.merge("t1", "0c0ffe", ["zzzzzz"], "")


async def test_a_memory_stored_with_an_upper_case_id_keeps_one_spelling(core: GatewayCore) -> None:
    written = await core.store("t1", NewMemory(text="retries: 3", memory_id=FIRST.upper()))
    assert written.memory_id == FIRST  # the spelling every id is kept in, as Import keeps it
    again = await core.store("t1", NewMemory(text="retries: 3", memory_id=FIRST))
    assert again == written  # the same memory, stored once
    assert (await core.history("t1", "e98b4a")).payload["memory_id"] == FIRST  # its start names it
