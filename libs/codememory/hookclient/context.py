"""Context injection: ask the gateway for memory to inject and print it in the agent's format.

At session start and at prompt submission an agent lets a hook add context, so on those events
the hook makes one core NATS request on ``cm.rpc.<tenant>.context`` over the connection it already
opened for the publish. It is fail-open and bounded by ``CODEMEMORY_CONTEXT_TIMEOUT_MS``: no
responder, a timeout or a malformed reply means no context and an empty stdout, never an error.

Output formats (from each agent's hook reference):
- Claude Code and Codex CLI: ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``
  (Codex's SessionStart/UserPromptSubmit output schemas have the same shape).
- Gemini CLI: ``hookSpecificOutput.additionalContext`` on SessionStart and BeforeAgent.
- Cursor: top-level ``additional_context`` (documented for ``sessionStart``). ``beforeSubmitPrompt``
  is documented with ``continue``/``user_message`` only, so ``"continue": true`` is added there to
  be sure the prompt goes through even if the context field is ignored.
"""

from __future__ import annotations

import json

from codememory import subjects
from codememory.hookclient.protocol import NatsError
from codememory.hookclient.wire import NatsConnection

__all__ = [
    "BUDGET_TOKENS",
    "CONTEXT_EVENTS",
    "context_request",
    "context_subject",
    "fetch_context",
    "format_output",
    "is_context_event",
]

BUDGET_TOKENS = 1500

CONTEXT_EVENTS: dict[str, frozenset[str]] = {
    "claude": frozenset({"SessionStart", "UserPromptSubmit"}),
    "codex": frozenset({"SessionStart", "UserPromptSubmit"}),
    "cursor": frozenset({"sessionStart", "beforeSubmitPrompt"}),
    "gemini": frozenset({"SessionStart", "BeforeAgent"}),
}


def is_context_event(agent: str, event: str) -> bool:
    return event in CONTEXT_EVENTS.get(agent, frozenset())


def context_subject(tenant: str) -> str:
    return subjects.context_request(tenant)


def context_request(body: dict[str, object]) -> dict[str, object]:
    """The request for a built hook message body (its payload already redacted)."""
    payload = body.get("payload")
    fields = payload if isinstance(payload, dict) else {}
    session_id = fields.get("session_id") or fields.get("conversation_id") or ""
    cwd = fields.get("cwd")
    if not (isinstance(cwd, str) and cwd):
        roots = fields.get("workspace_roots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    request: dict[str, object] = {
        "agent": body.get("agent", ""),
        "event": body.get("event", ""),
        "session_id": session_id if isinstance(session_id, str) else str(session_id),
        "cwd": cwd or body.get("repo_root", ""),
        "repo": body.get("repo", ""),
        "branch": body.get("branch", ""),
    }
    prompt = fields.get("prompt")
    if isinstance(prompt, str) and prompt:
        request["prompt"] = prompt
    source = fields.get("source")  # a session start's: startup, resume, clear, compact
    if isinstance(source, str) and source:
        request["source"] = source
    request["budget_tokens"] = BUDGET_TOKENS
    return request


def fetch_context(conn: NatsConnection, tenant: str, request: dict[str, object], timeout: float) -> str:
    """The context text from the gateway, or ``''`` on no responder, timeout or a bad reply."""
    if timeout <= 0:
        return ""
    data = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
    try:
        reply = json.loads(conn.request(context_subject(tenant), data, timeout))
    except (NatsError, ValueError):
        return ""
    text = reply.get("context") if isinstance(reply, dict) else None
    return text if isinstance(text, str) else ""


def format_output(agent: str, event: str, text: str) -> str | None:
    """The JSON line the agent reads from stdout, or None when there is nothing to inject."""
    if not text.strip() or not is_context_event(agent, event):
        return None
    output: dict[str, object]
    if agent == "cursor":
        output = {"additional_context": text}
        if event == "beforeSubmitPrompt":
            output = {"continue": True, **output}
    else:
        output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False)
