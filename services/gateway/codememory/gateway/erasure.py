"""Erase: destroying a user's, a session's or a memory's keys, and telling every projection.

Memories recorded from an agent session (a prompt, a tool's output: ``memory_id`` is the event's id)
are sealed with their session's key, so erasing a session or a user also forgets the memories the
projection holds for those sessions. ``erase --memory`` on one of them punctures the event's leaf of
the session's key tree (``codememory.sealing.tree``): that event's text and vector go, the rest of
the session stays. A session sealed before per-event keys has one key for all its events: erasing
one of its memories is refused with the session to erase instead.

What repeats an erased text goes too: insights and summaries drawn from an erased memory (the key
store knows their sources: ``codememory.sealing.erase.derived``) are forgotten and their keys
destroyed, and erasing a tool call's outcome punctures its ``pre`` event's leaf (read from the event
that created the memory).

Order matters and is chosen so that a crash at any point can be finished by erasing again:
0. a user or a session: every hook message HOOKS held is taken by ingest first (``hooksdrain``), so
   what the user typed just before is in LOG under the keys about to go; refused while ingest lags;
1. the key store says which records the erasure covers (nothing is destroyed yet);
2. one ``MemoryForgotten`` per memory covered, then a ``DataErased``, are appended to LOG (ids are
   deterministic, so a retry is stored once), and the call waits for the memory projection to fold
   them: when Erase returns, recall, context and export no longer hold the text;
3. the keys are destroyed, then a second pass forgets and destroys what was written under them while
   this ran (a prompt of the session, a memory of the user). From then on every read of LOG (a
   projection, replay, ``codememory log``, a raw read of the stream or a copy of its files) gets
   ``[erased]`` for those records.
Replay after it folds ``[erased]`` text into memories that the same ``MemoryForgotten`` then drops,
so the rebuilt projection equals the live one.

The caller needs a token that names the tenant and is an admin token; memories and sessions of other
tenants are out of reach (keys are per tenant, and the projection ignores another tenant's events).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence

import grpc
import structlog

from codememory.events import (
    DataErased,
    Envelope,
    EventDecodeError,
    EventLog,
    MemoryForgotten,
    decode_envelope,
    deterministic_id,
    new_envelope,
)
from codememory.events.codec import installed_sealer
from codememory.gateway.callers import require_admin
from codememory.gateway.errors import InvalidArgument, NotReady
from codememory.gateway.rpccall import rpc
from codememory.gateway.settings import GatewaySettings
from codememory.memory import point_id
from codememory.sealing import ErasePlan, Scope, Sealer, companion_leaves, derived, destroy, late, plan
from codememory.v1 import erasure_pb2 as pb
from codememory.v1 import erasure_pb2_grpc as pb_grpc
from codememory.vectorstore import IndexFilter, VectorIndex

log = structlog.get_logger(__name__)

WaitFor = Callable[[int, float], Awaitable[bool]]
Drained = Callable[[float], Awaitable[bool]]  # ingest took what HOOKS held (``hooksdrain.HooksDrain``)
_SCOPES: Mapping[str, Scope] = {"user": "user", "session_id": "session", "memory_id": "memory"}
MAX_SUBJECT = 512


class SealingOff(InvalidArgument):
    """Erasure destroys keys: with sealing off there are none (CODEMEMORY_SEALING)."""


class SharesSessionKey(InvalidArgument):
    """The memory was recorded from an agent session: its text is sealed with the session's key."""


def session_memories(index: VectorIndex, tenant: str, session_ids: Sequence[str]) -> list[str]:
    """The ids of the tenant's memories recorded in those sessions (any state)."""
    if not session_ids:
        return []
    flt = IndexFilter(equals={"tenant": tenant}, any_of={"session_id": list(session_ids)})
    return [str(p.payload.get("memory_id", p.id)) for p in index.scroll(flt)]


def memory_session(index: VectorIndex, tenant: str, memory_id: str) -> tuple[str, int]:
    """The session a memory of the tenant was recorded in ("" when none, or not the tenant's), and the
    LOG position of the event that created it (0 when not known)."""
    found = index.get([point_id(tenant, memory_id)])
    if not found or found[0].payload.get("tenant") != tenant:
        return "", 0
    created = found[0].payload.get("created_seq")
    seq = int(created) if isinstance(created, int | float) and created > 0 else 0
    return str(found[0].payload.get("session_id") or ""), seq


def subject_digest(key: bytes, tenant: str, scope: Scope, subject: str) -> str:
    """What ``DataErased`` says was erased: an HMAC under the tenant's id key, so LOG alone does not
    confirm a guessed user name (a plain digest of a name is as good as the name)."""
    message = "\0".join((tenant, scope, subject)).encode("utf-8", "surrogatepass")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def _forgotten(tenant: str, memory_id: str) -> Envelope:
    return new_envelope(
        MemoryForgotten(memory_id=memory_id, reason="erased"),
        event_id=deterministic_id(tenant, "erased", memory_id),
        tenant=tenant,
    )


class Eraser:
    """Erasure over the event log, the projection's position and the process's sealer."""

    def __init__(
        self,
        event_log: EventLog,
        sealer: Sealer,
        wait_for: WaitFor,
        wait_s: float,
        index: Callable[[], VectorIndex],
        drained: Drained | None = None,
        drain_s: float = 30.0,
    ) -> None:
        self._drained = drained  # None: no HOOKS in front of this log (tests)
        self._drain_s = drain_s
        self._index = index  # the live memory index (replay swaps it: asked for on every call)
        self._log = event_log
        self._sealer = sealer
        self._wait_for = wait_for
        self._wait_s = wait_s
        self._lock = asyncio.Lock()  # one erasure at a time per gateway: plans never interleave

    async def erase(self, tenant: str, scope: Scope, subject: str) -> pb.EraseResponse:
        ring = self._sealer.keys
        async with self._lock:
            if scope != "memory":
                await self._drain()
            index = self._index()
            session, created = (
                await asyncio.to_thread(memory_session, index, tenant, subject)
                if scope == "memory"
                else ("", 0)
            )
            companions = await self._companions(tenant, subject, created) if session else ()
            planned = await asyncio.to_thread(plan, ring, tenant, scope, subject, session, companions)
            if planned.refused_session:
                raise SharesSessionKey(
                    f"memory {subject} was recorded in session {session}, sealed before per-event keys "
                    f"with one key for the session: erase --session {session} erases it (with the rest "
                    "of that session)"
                )
            recorded = await asyncio.to_thread(session_memories, index, tenant, planned.session_ids)
            memory_ids = set(planned.memory_ids) | set(recorded)
            if scope == "memory":
                memory_ids.add(subject)  # also one written before sealing was on: still forgotten
            repeats = await asyncio.to_thread(derived, ring, planned, memory_ids)  # insights, summaries
            planned = planned.plus(repeats)
            memory_ids |= set(repeats.memory_ids)
            key = await asyncio.to_thread(ring.id_key, tenant)
            digest = subject_digest(key, tenant, scope, subject)
            envelopes = [_forgotten(tenant, memory_id) for memory_id in sorted(memory_ids)]
            erased = DataErased(
                scope=scope,
                subject_digest=digest,
                memory_ids=tuple(sorted(memory_ids)),
                session_ids=planned.session_ids,
                keys_destroyed=len(planned.keys) + len(planned.punctures),
            )
            cut = [f"{record}\0{leaf}" for record, leaf in planned.punctures]
            envelopes.append(
                new_envelope(
                    erased,
                    event_id=deterministic_id(tenant, "data.erased", digest, *planned.keys, *cut),
                    tenant=tenant,
                )
            )
            seq = await self._append(envelopes)
            destroyed = await asyncio.to_thread(destroy, ring, planned)
            destroyed += await self._second_pass(tenant, planned, subject, memory_ids)
        log.info("erased", scope=scope, memories=len(memory_ids), keys=destroyed, seq=seq)
        return pb.EraseResponse(
            memory_ids=sorted(memory_ids),
            session_ids=list(planned.session_ids),
            keys_destroyed=destroyed,
            seq=seq,
        )

    async def _drain(self) -> None:
        """Hook messages of this user or session still waiting in HOOKS reach LOG (and the projection)
        first, so the keys destroyed next cover them; nothing is erased while ingest lags."""
        if self._drained is None:
            return
        if not await self._drained(self._drain_s):
            raise NotReady(
                f"hook messages received before this erasure still wait for ingest after {self._drain_s:g} s "
                "(is the ingest service running?): nothing was erased; erase again once it has caught up"
            )
        await self._wait_for(await self._log.last_seq(), self._wait_s)

    async def _companions(self, tenant: str, memory_id: str, seq: int) -> tuple[str, ...]:
        """Leaves of the memory's session that repeat its text, from the event that created it."""
        if seq <= 0:
            return ()
        async for record in self._log.read(seq, until_seq=seq):
            try:
                envelope = decode_envelope(record.data)
            except EventDecodeError:
                return ()
            if envelope.tenant == tenant and envelope.event_id == memory_id:
                return companion_leaves(envelope.payload)
        return ()

    async def _append(self, envelopes: list[Envelope]) -> int:
        appended = await self._log.append(envelopes)
        seq = appended[-1].seq
        if not await self._wait_for(seq, self._wait_s):
            raise NotReady(f"erasure appended at {seq} but not yet applied; erase again to finish")
        return seq

    async def _second_pass(self, tenant: str, planned: ErasePlan, subject: str, forgotten: set[str]) -> int:
        """What was written under the erased keys while they were being erased: forgotten and destroyed
        too (``memory_ids`` grows by what it finds). Writers see the destroyed keys from now on."""
        ring = self._sealer.keys
        await self._wait_for(await self._log.last_seq(), self._wait_s)
        extra = await asyncio.to_thread(late, ring, planned, subject)
        sessions = [*planned.session_ids, *extra.session_ids]
        recorded = await asyncio.to_thread(session_memories, self._index(), tenant, sessions)
        every = forgotten | set(extra.memory_ids) | set(recorded)
        # derived while this ran (a cycle that read a source before it was forgotten)
        extra = extra.plus(await asyncio.to_thread(derived, ring, planned.plus(extra), every))
        missed = (every | set(extra.memory_ids)) - forgotten
        if missed:
            await self._append([_forgotten(tenant, memory_id) for memory_id in sorted(missed)])
            forgotten |= missed
        return await asyncio.to_thread(destroy, ring, extra)


class ErasureServicer(pb_grpc.ErasureServiceServicer):
    def __init__(
        self, eraser: Eraser | None, tokens: Mapping[str, str], admin_tokens: Collection[str]
    ) -> None:
        self._eraser = eraser  # None: sealing is off in this gateway
        self.tokens = tokens
        self._admin_tokens = admin_tokens

    @rpc
    async def Erase(
        self, tenant: str, request: pb.EraseRequest, context: grpc.aio.ServicerContext
    ) -> pb.EraseResponse:
        require_admin(context, self._admin_tokens)
        which = request.WhichOneof("subject")
        subject = getattr(request, which) if which else ""
        if which is None or not subject.strip():
            raise InvalidArgument("say what to erase: a user, a session_id or a memory_id")
        if len(subject) > MAX_SUBJECT:
            raise InvalidArgument(f"the {which} is longer than {MAX_SUBJECT} characters")
        if self._eraser is None:
            raise SealingOff("erasure needs sealing on (CODEMEMORY_SEALING): there are no keys to destroy")
        return await self._eraser.erase(tenant, _SCOPES[which], subject)


def erasure_servicer(
    event_log: EventLog,
    wait_for: WaitFor,
    index: Callable[[], VectorIndex],
    settings: GatewaySettings,
    drained: Drained | None = None,
) -> ErasureServicer:
    """The servicer, erasing with the sealer this process installed (none: Erase says sealing is off)."""
    sealer = installed_sealer()
    wait_s, drain_s = settings.write_wait_ms / 1000, settings.erase_hooks_wait_s
    eraser = (
        Eraser(event_log, sealer, wait_for, wait_s, index, drained, drain_s)
        if isinstance(sealer, Sealer)
        else None
    )
    return ErasureServicer(eraser, settings.tokens, settings.admin_tokens)
