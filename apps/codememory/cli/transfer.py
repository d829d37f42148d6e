"""Export and import of memories as JSON lines, through the gateway so imports are ordinary events.

One line per memory the tenant has not forgotten: id, text, type, tenant, repo, branch, user, session,
agent, paths, time (ISO-8601), tags, importance, metadata, state, and what the state points to:
``superseded_by`` and ``superseded_at`` (ISO-8601) for a superseded memory, ``merged_into`` for a
merged one. Import keeps each memory's id (so importing twice stores once), time, agent and state
(deprecated, archived, superseded by, merged into: the gateway's ``importlinks``, which also says what
is not carried over); the tenant is always the caller's.

Import reads and checks the whole file first (a bad line fails before anything is sent), then streams
it to the gateway's Import RPC in batches (``ImportBatches``: a count and a byte bound, under the
server's 8 MiB message limit) with a progress bar on a terminal, and one wait at the end.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from codememory.cli.client import Connection
from codememory.memorylines import StateOf, checked_state, iso_seconds
from codememory.v1 import memory_pb2 as pb

BATCH = 1000
BATCH_BYTES = 4 * 1024 * 1024
IMPORT_TIMEOUT_S = 3600.0


class ImportError_(ValueError):
    """A line of the import file is not a memory."""


def export_lines(conn: Connection, repo: str = "") -> Iterator[str]:
    for memory in conn.stub.Export(pb.ExportRequest(repo=repo), metadata=conn.metadata, timeout=conn.timeout):
        links: dict[str, str] = {}
        if memory.superseded_by:
            links["superseded_by"] = memory.superseded_by
            if memory.superseded_at:
                links["superseded_at"] = _iso(memory.superseded_at)
        if memory.merged_into:
            links["merged_into"] = memory.merged_into
        yield json.dumps(
            {
                "id": memory.id,
                "text": memory.text,
                "type": memory.type,
                "tenant": memory.tenant,
                "repo": memory.scope.repo,
                "branch": memory.scope.branch,
                "user": memory.scope.user,
                "session": memory.scope.session_id,
                "agent": memory.agent,
                "paths": list(memory.scope.paths),
                "time": _iso(memory.created_at),
                "tags": list(memory.tags),
                "importance": memory.importance,
                "metadata": dict(memory.metadata),
                "state": memory.state,
                **links,
            },
            ensure_ascii=False,
        )


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def _seconds(value: object, what: str) -> float:
    """An ISO-8601 time or seconds since the epoch, as seconds; 0 when absent."""
    if value in (None, ""):
        return 0.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return iso_seconds(str(value))
    except ValueError as exc:
        raise ImportError_(f"{what} is not an ISO-8601 time: {value!r}") from exc


def imported(row: dict[str, Any]) -> pb.ImportedMemory:
    """One line as the Import RPC takes it: the memory, its state and what the state points to, checked
    by the gateway's rules (``memorylines``) before anything is sent."""
    request = store_request(row)
    kind = str(row.get("state") or "")
    at = _seconds(row.get("superseded_at"), "superseded_at") if kind == "superseded" else 0.0
    given = StateOf(
        state=kind,
        superseded_by=str(row.get("superseded_by") or ""),
        superseded_at=at,
        merged_into=str(row.get("merged_into") or ""),
    )
    state = checked_state(str(row.get("id") or ""), given)
    return pb.ImportedMemory(
        memory=request,
        state=state.state,
        superseded_by=state.superseded_by,
        superseded_at=state.superseded_at,
        merged_into=state.merged_into,
    )


def store_request(row: dict[str, Any]) -> pb.StoreRequest:
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ImportError_("each line needs a non-empty 'text'")
    request = pb.StoreRequest(
        text=text,
        type=str(row.get("type") or "note"),
        memory_id=str(row.get("id") or ""),
        created_at=str(row.get("time") or ""),
        agent=str(row.get("agent") or ""),
        tags=[str(t) for t in row.get("tags") or []],
        metadata={str(k): str(v) for k, v in (row.get("metadata") or {}).items()},
        scope=pb.Scope(
            repo=str(row.get("repo") or ""),
            branch=str(row.get("branch") or ""),
            user=str(row.get("user") or ""),
            session_id=str(row.get("session") or ""),
            paths=[str(p) for p in row.get("paths") or []],
        ),
    )
    if row.get("importance") is not None:
        request.importance = float(row["importance"])
    return request


def parse_lines(lines: Iterable[str]) -> list[pb.ImportedMemory]:
    """Every memory of the file, checked; ``ImportError_`` names the first bad line."""
    memories = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportError_(f"line {number}: not JSON ({exc})") from exc
        if not isinstance(row, dict):
            raise ImportError_(f"line {number}: not a JSON object")
        try:
            memories.append(imported(row))
        except (ImportError_, TypeError, ValueError) as exc:
            raise ImportError_(f"line {number}: {exc}") from exc
    return memories


def import_batches(
    memories: Sequence[pb.ImportedMemory],
    *,
    wait_embedded: bool,
    batch: int = BATCH,
    max_bytes: int = BATCH_BYTES,
    sent: Callable[[int], None] | None = None,
) -> Iterator[pb.ImportRequest]:
    """The request stream: batches of at most ``batch`` memories and about ``max_bytes`` bytes."""
    current: list[pb.ImportedMemory] = []
    size = 0
    first = True
    for memory in memories:
        current.append(memory)
        size += memory.ByteSize()
        if len(current) >= batch or size >= max_bytes:
            yield pb.ImportRequest(memories=current, wait_embedded=wait_embedded and first)
            if sent is not None:
                sent(len(current))
            current, size, first = [], 0, False
    if current or first:
        yield pb.ImportRequest(memories=current, wait_embedded=wait_embedded and first)
        if sent is not None:
            sent(len(current))


def import_memories(
    conn: Connection, memories: Sequence[pb.ImportedMemory], *, wait_embedded: bool = True
) -> dict[str, Any]:
    """Stream ``memories`` to the gateway; the summary once they are recallable."""
    started = time.perf_counter()
    with _bar(len(memories)) as sent:
        requests = import_batches(memories, wait_embedded=wait_embedded, sent=sent)
        response = conn.stub.Import(requests, metadata=conn.metadata, timeout=IMPORT_TIMEOUT_S)
    seconds = time.perf_counter() - started
    return {
        "imported": int(response.received),
        "stored": int(response.stored),
        "existing": int(response.existing),
        "states": int(response.states),
        "embedded": bool(response.embedded),
        "seconds": round(seconds, 3),
        "server_seconds": round(response.seconds, 3),
        "append_seconds": round(response.append_seconds, 3),
        "per_second": round(response.received / seconds, 1) if seconds > 0 else 0.0,
    }


@contextmanager
def _bar(total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when it is a terminal (sent, then waiting until recallable)."""
    if not sys.stderr.isatty():
        yield lambda _n: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task("importing", total=total)

        def sent(count: int) -> None:
            progress.advance(task, count)
            if progress.tasks[0].completed >= total:
                progress.update(task, description="waiting until recallable")

        yield sent
