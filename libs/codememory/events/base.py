"""The two bases of every event: the tag field on the wire, and what an agent's events carry.

Kept apart from the families so each family module imports only these, and ``catalogue`` (the one
place that lists every event) imports the families.
"""

from __future__ import annotations

import msgspec


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every domain event."""


class _AgentEvent(_Event, frozen=True, kw_only=True):
    session_id: str
    agent: str
    cwd: str = ""
    repo: str = ""
    branch: str = ""
    user: str = ""
