"""Session context: what a SessionStart (or prompt) hook injects, most relevant first, within a budget.

The query is built from what the agent is working on (repo, branch, working directory, and the prompt
when there is one). Memories are packed greedily by rank until the token budget is spent (about four
characters a token, the usual rule for English and code). The block is wrapped in the markers ingest
recognises, so injected context is never stored again as a new memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from codememory.recall.query import RecallQuery
from codememory.recall.recaller import Recaller, RecallHit
from codememory.redaction import INJECTED_CLOSE, INJECTED_OPEN

CHARS_PER_TOKEN = 4
_HEADER = "Memories from earlier sessions (codememory), most relevant first:"


@dataclass(frozen=True)
class SessionContext:
    text: str
    tokens: int
    memory_ids: tuple[str, ...]


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _line(hit: RecallHit) -> str:
    payload = hit.payload
    when = datetime.fromtimestamp(float(str(payload.get("created_at", 0.0))), UTC).strftime("%Y-%m-%d")
    text = " ".join(str(payload.get("text", "")).split())
    return f"- [{payload.get('type', 'note')}, {when}] {text}"


def build_context(
    recaller: Recaller,
    *,
    tenant: str,
    repo: str = "",
    branch: str = "",
    cwd: str = "",
    session_id: str = "",
    prompt: str = "",
    budget_tokens: int = 1500,
) -> SessionContext:
    text = prompt.strip() or " ".join(p for p in (repo, branch, cwd.rstrip("/").rsplit("/", 1)[-1]) if p)
    query = RecallQuery(tenant=tenant, text=text, limit=50, repo=repo, cwd=cwd)
    hits = recaller.recall(query)
    if not hits and repo:
        hits = recaller.recall(RecallQuery(tenant=tenant, text=text, limit=50, cwd=cwd))
    overhead = estimate_tokens(f"{INJECTED_OPEN}\n{_HEADER}\n{INJECTED_CLOSE}")
    lines: list[str] = []
    ids: list[str] = []
    used = overhead
    for hit in hits:
        if hit.payload.get("session_id") == session_id and session_id:
            continue  # the agent already has its own session in view
        line = _line(hit)
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            if used == overhead and budget_tokens - used > 20:  # too long for the budget: trim the best one
                line = line[: (budget_tokens - used - 1) * CHARS_PER_TOKEN]
                cost = estimate_tokens(line) + 1
            else:
                continue
        lines.append(line)
        ids.append(hit.memory_id)
        used += cost
    if not lines:
        return SessionContext(text="", tokens=0, memory_ids=())
    body = "\n".join([INJECTED_OPEN, _HEADER, *lines, INJECTED_CLOSE])
    return SessionContext(text=body, tokens=estimate_tokens(body), memory_ids=tuple(ids))
