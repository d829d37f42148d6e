"""Export and import of memories as JSON lines, through the gateway so imports are ordinary events.

One line per memory: id, text, type, tenant, repo, branch, user, session, paths, time (ISO-8601),
tags, importance, metadata. Import keeps each memory's id (so importing twice stores once) and time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from codememory.cli.client import Connection
from codememory.v1 import memory_pb2 as pb


class ImportError_(ValueError):
    """A line of the import file is not a memory."""


def export_lines(conn: Connection, repo: str = "") -> Iterator[str]:
    for memory in conn.stub.Export(pb.ExportRequest(repo=repo), metadata=conn.metadata, timeout=conn.timeout):
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
                "paths": list(memory.scope.paths),
                "time": datetime.fromtimestamp(memory.created_at, UTC).isoformat(),
                "tags": list(memory.tags),
                "importance": memory.importance,
                "metadata": dict(memory.metadata),
                "state": memory.state,
            },
            ensure_ascii=False,
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


def import_lines(conn: Connection, lines: Iterable[str]) -> int:
    count = 0
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
            request = store_request(row)
        except ImportError_ as exc:
            raise ImportError_(f"line {number}: {exc}") from exc
        conn.stub.Store(request, metadata=conn.metadata, timeout=conn.timeout)
        count += 1
    return count
