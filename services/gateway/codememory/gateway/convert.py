"""Conversions between protobuf messages and the gateway's domain values. Nothing else."""

from __future__ import annotations

from collections.abc import Mapping

from codememory.cycles import CycleReport
from codememory.events import MemoryScope
from codememory.gateway.histories import MemoryHistory
from codememory.gateway.importing import ImportedMemory, ImportTally
from codememory.gateway.writes import NewMemory
from codememory.memorylines import StateOf
from codememory.recall import RecallHit, RecallQuery
from codememory.v1 import memory_pb2 as pb


def _strs(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def _num(value: object, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) else default


def memory_message(payload: Mapping[str, object]) -> pb.Memory:
    metadata = payload.get("metadata")
    return pb.Memory(
        id=str(payload.get("memory_id", "")),
        text=str(payload.get("text", "")),
        type=str(payload.get("type", "")),
        scope=pb.Scope(
            repo=str(payload.get("repo", "")),
            branch=str(payload.get("branch", "")),
            user=str(payload.get("user", "")),
            session_id=str(payload.get("session_id", "")),
            paths=_strs(payload.get("paths")),
        ),
        tags=_strs(payload.get("tags")),
        importance=_num(payload.get("importance"), 0.5),
        metadata={str(k): str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {},
        created_at=_num(payload.get("created_at")),
        state=str(payload.get("state", "")),
        agent=str(payload.get("agent", "")),
        tenant=str(payload.get("tenant", "")),
        superseded_by=str(payload.get("superseded_by", "")),
        superseded_at=_num(payload.get("superseded_at")),
        supersedes=_strs(payload.get("supersedes")),
        merged_into=str(payload.get("merged_into", "")),
        restated=int(_num(payload.get("restated"), 1.0)),
        links=_strs(payload.get("links")),
        code_links=_strs(payload.get("code_links")),
    )


def hit_message(hit: RecallHit) -> pb.Hit:
    p = hit.parts
    parts = pb.ScoreParts(
        dense=p.dense,
        lexical=p.lexical,
        link=p.link,
        recency=p.recency,
        importance=p.importance,
        scope=p.scope,
        author=p.author,
        total=p.total,
    )
    return pb.Hit(memory=memory_message(hit.payload), score=parts)


def recall_query(tenant: str, request: pb.RecallRequest) -> RecallQuery:
    return RecallQuery(
        tenant=tenant,
        text=request.query,
        limit=request.limit or 10,
        repo=request.repo,
        branch=request.branch,
        user=request.user,
        session_id=request.session_id,
        types=tuple(request.types),
        paths=tuple(request.paths),
        since=request.since,
        until=request.until,
        include_deprecated=request.include_deprecated,
        include_history=request.include_history,
        cwd=request.cwd,
    )


def new_memory(request: pb.StoreRequest) -> NewMemory:
    s = request.scope
    return NewMemory(
        text=request.text,
        memory_type=request.type or "note",
        scope=MemoryScope(
            repo=s.repo, branch=s.branch, user=s.user, session_id=s.session_id, paths=tuple(s.paths)
        ),
        tags=tuple(request.tags),
        importance=request.importance if request.HasField("importance") else 0.5,
        metadata=dict(request.metadata),
        memory_id=request.memory_id,
        created_at=request.created_at,
        agent=request.agent,
    )


def imported_memory(message: pb.ImportedMemory) -> ImportedMemory:
    state = StateOf(
        state=message.state,
        superseded_by=message.superseded_by,
        superseded_at=message.superseded_at,
        merged_into=message.merged_into,
    )
    return ImportedMemory(memory=new_memory(message.memory), state=state)


def import_response(tally: ImportTally, seconds: float) -> pb.ImportResponse:
    return pb.ImportResponse(
        received=tally.received,
        stored=tally.stored,
        existing=tally.existing,
        last_seq=tally.last_seq,
        embedded=tally.embedded,
        seconds=seconds,
        append_seconds=tally.append_s,
        states=tally.states,
    )


def history_message(found: MemoryHistory) -> pb.HistoryResponse:
    entries = [
        pb.HistoryEntry(
            seq=int(_num(e.get("seq"))),
            event=str(e.get("event", "")),
            at=_num(e.get("at")),
            detail={str(k): str(v) for k, v in e.items() if k not in ("seq", "event", "at")},
        )
        for e in found.entries
    ]
    return pb.HistoryResponse(
        memory=memory_message(found.payload),
        entries=entries,
        related=[memory_message(r) for r in found.related],
    )


def consolidate_message(report: CycleReport) -> pb.ConsolidateResponse:
    return pb.ConsolidateResponse(
        cycle_id=report.cycle_id,
        up_to_seq=report.up_to_seq,
        merged=report.merged,
        superseded=report.superseded,
        archived=report.archived,
        decayed=report.decayed,
        insights=report.insights,
        summaries=report.summaries,
        linked=report.linked,
        took_ms=report.took_ms,
        without_vectors=report.without_vectors,
    )
