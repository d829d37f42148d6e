"""The hook's forgetting question over request-reply: answered from the view, per tenant, never an error."""

from __future__ import annotations

import json
from typing import Any

from faststream.nats import NatsBroker, TestNatsBroker
from reviewskit import SESSION, TENANT, edit, live_view, prompt, records  # type: ignore[import-not-found]

from codememory import subjects
from codememory.events import InMemoryEventLog
from codememory.reviews.responder import forgetting_router, request_edits
from codememory.reviews.reviewer import Reviewer


async def _reviewer() -> Reviewer:
    live = live_view()
    rows = await records(
        InMemoryEventLog(),
        [
            prompt("rename get_user to fetch_user"),
            edit("app/users.py", "def get_user(uid):", "def fetch_user(uid):"),
            prompt("add logging"),
        ],
    )
    await live.apply(rows)
    return Reviewer(live)


async def _ask(reviewer: Reviewer | None, body: bytes, tenant: str = TENANT) -> dict[str, Any]:
    broker = NatsBroker()
    broker.include_router(forgetting_router(lambda: reviewer))
    async with TestNatsBroker(broker) as test_broker:
        reply = await test_broker.request(body, subjects.forgetting_request(tenant))
        decoded: dict[str, Any] = json.loads(reply.body)
        return decoded


def _undo(session: str = SESSION) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "path": "/home/dev/app/users.py",  # absolute, as the agent sends it; LOG has it repo-relative
            "tool_input": {"old_string": "def fetch_user(uid):", "new_string": "def get_user(uid):"},
        }
    ).encode()


async def test_an_undoing_edit_is_answered_with_the_instruction() -> None:
    reply = await _ask(await _reviewer(), _undo())
    assert "rename get_user to fetch_user" in reply["context"] and reply["turn"] == 1
    assert reply["undone"] == ["renamed `fetch_user` back to `get_user`", "put back `def get_user(uid)`"]


async def test_another_tenant_or_session_hears_nothing() -> None:
    reviewer = await _reviewer()
    assert await _ask(reviewer, _undo(), tenant="beta") == {"context": ""}
    assert await _ask(reviewer, _undo("other-session")) == {"context": ""}


async def test_bad_requests_and_a_service_still_starting_answer_empty() -> None:
    reviewer = await _reviewer()
    for body in (
        b"{not json",
        b"[1]",
        b'{"session_id": 7}',
        json.dumps({"session_id": SESSION, "edits": "x"}).encode(),
    ):
        assert await _ask(reviewer, body) == {"context": ""}
    assert await _ask(None, _undo()) == {"context": ""}


def test_request_edits_takes_explicit_edits_or_the_agents_input() -> None:
    explicit = {"edits": [{"path": "a.py", "old": "x", "new": "y"}, {"path": 3}, {"old": "q"}]}
    assert [(e.path, e.old, e.new) for e in request_edits(explicit)] == [("a.py", "x", "y")]
    agent = {"path": "/r/a.py", "tool_input": {"old_string": "x", "new_string": "y"}}
    assert [(e.path, e.old, e.new) for e in request_edits(agent)] == [("/r/a.py", "x", "y")]
    assert request_edits({"tool_input": "nope"}) == []
