"""Forgetting: after an edit, ask the reviews service whether it undid an instructed change.

Right after an agent edits a file the hook publishes the event as always, then makes one core NATS
request on ``cm.rpc.<tenant>.forgetting`` over the connection it already has, with the session id, the
file and the edit's own old and new text. The reviews service judges it against the session's earlier
turns (``codememory.reviews.forgetting``) and replies with a message, or with nothing. Fail-open and
bounded like context: no responder, a timeout or a bad reply prints nothing.

Where each agent reads text a PostToolUse-style hook prints (from each agent's hook reference):
- Claude Code and Codex CLI ``PostToolUse``: ``hookSpecificOutput.additionalContext``.
- Gemini CLI ``AfterTool``: ``hookSpecificOutput.additionalContext``.
- Cursor ``postToolUse``: top-level ``additional_context``. Cursor's ``afterFileEdit`` output is not
  read by Cursor, so that event is not asked about.
"""

from __future__ import annotations

import json

from codememory import subjects
from codememory.hookclient.protocol import NatsError
from codememory.hookclient.wire import NatsConnection

__all__ = ["FORGETTING_EVENTS", "fetch_forgetting", "forgetting_request", "format_forgetting"]

FORGETTING_EVENTS: dict[str, frozenset[str]] = {
    "claude": frozenset({"PostToolUse"}),
    "codex": frozenset({"PostToolUse"}),
    "cursor": frozenset({"postToolUse"}),
    "gemini": frozenset({"AfterTool"}),
}
_PATH_KEYS = ("file_path", "path", "filePath", "absolute_path", "target_file")
_EDIT_KEYS = ("old_string", "new_string", "edits", "patch", "input", "diff")


def _path(fields: dict[str, object], tool_input: dict[str, object]) -> str:
    for source in (tool_input, fields):
        for key in _PATH_KEYS:
            value = source.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def forgetting_request(agent: str, body: dict[str, object]) -> dict[str, object] | None:
    """The request for a built hook message body, or None when it is not an edit worth asking about."""
    if str(body.get("event", "")) not in FORGETTING_EVENTS.get(agent, frozenset()):
        return None
    payload = body.get("payload")
    fields = payload if isinstance(payload, dict) else {}
    tool_input = fields.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    edit = {k: tool_input[k] for k in _EDIT_KEYS if k in tool_input}
    if not edit or not any(isinstance(v, str | list) and v for v in edit.values()):
        return None
    session_id = fields.get("session_id") or fields.get("conversation_id") or ""
    if not isinstance(session_id, str) or not session_id:
        return None
    return {"session_id": session_id, "path": _path(fields, tool_input), "tool_input": edit}


def fetch_forgetting(conn: NatsConnection, tenant: str, request: dict[str, object], timeout: float) -> str:
    """The service's message, or ``''`` on no responder, a timeout, a bad reply or nothing undone."""
    if timeout <= 0:
        return ""
    data = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
    try:
        reply = json.loads(conn.request(subjects.forgetting_request(tenant), data, timeout))
    except (NatsError, ValueError):
        return ""
    text = reply.get("context") if isinstance(reply, dict) else None
    return text if isinstance(text, str) else ""


def format_forgetting(agent: str, event: str, text: str) -> str | None:
    """The JSON line the agent reads after its tool ran, or None when there is nothing to say."""
    if not text.strip() or event not in FORGETTING_EVENTS.get(agent, frozenset()):
        return None
    if agent == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}, ensure_ascii=False
    )
