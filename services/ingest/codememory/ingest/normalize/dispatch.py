"""Which normalizer reads a hook message: the agent's own, or the catch-all observation.

The session context (session id, cwd) is read here once, from whichever field each agent uses, so agent
modules only map events. An agent or event this code does not know is recorded as an observation, never
rejected: only a malformed *message* is an error, and that was decided before dispatch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from codememory.events import Event
from codememory.ingest.normalize import claude, codex, cursor, gemini
from codememory.ingest.normalize.common import Context, first_text, line, list_of, observation, squash

if TYPE_CHECKING:
    from codememory.ingest.message import HookMessage

__all__ = ["NORMALIZERS", "context_for", "normalize_message"]

Normalizer = Callable[[Context, dict[str, Any]], list[Event]]

NORMALIZERS: dict[str, Normalizer] = {
    "claude": claude.normalize,
    "codex": codex.normalize,
    "cursor": cursor.normalize,
    "gemini": gemini.normalize,
}
"""Agent name (as the hook client sends it) to its normalizer."""


def normalize_message(message: HookMessage) -> list[Event]:
    """The domain events of one hook message (possibly none, e.g. an injected-context-only prompt)."""
    ctx = context_for(message)
    if message.is_raw:
        return [
            observation(
                ctx, message.payload, squash(f"Unparsed {line(ctx.hook_event, 100) or 'hook'} payload")
            )
        ]
    normalizer = NORMALIZERS.get(message.agent)
    if normalizer is None:
        return [observation(ctx, message.payload)]
    try:
        return normalizer(ctx, message.payload)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        # A payload shape no normalizer anticipated: keep the hook as an observation rather than lose it.
        fallback = observation(ctx, message.payload)
        fields = {**fallback.fields, "_normalize_error": squash(f"{type(exc).__name__}: {line(str(exc))}")}
        return [msgspec.structs.replace(fallback, fields=fields)]


def context_for(message: HookMessage) -> Context:
    """The session context of a message: session id and cwd from the payload, the rest from the client."""
    payload = message.payload
    roots = [root for root in list_of(payload, "workspace_roots") if isinstance(root, str) and root]
    cwd = first_text(payload, "cwd") or (roots[0] if roots else "") or message.repo_root
    return Context(
        hook_event=message.hook_event,
        session_id=line(first_text(payload, "session_id", "conversation_id", "sessionId"), 200),
        agent=line(message.agent, 50),
        cwd=line(cwd, 1000),
        repo=line(message.repo, 200),
        repo_root=message.repo_root,
        branch=line(message.branch, 200),
        user=line(message.user, 200),
        trimmed=message.trimmed,
    )
