"""The errors ingest can raise, kept to a small tree so the handler can route on type alone.

Anything under ``IngestError`` means "this message can never be turned into events": the handler sends it
to the dead-letter queue with ``str(error)`` as the reason and acks, rather than redelivering it forever.
Unknown agents and unknown hook events are deliberately *not* errors: they become observations.
"""

from __future__ import annotations

__all__ = ["ForeignTenantError", "IngestError", "MalformedHookMessageError"]


class IngestError(Exception):
    """Base of every error the ingest domain raises on purpose."""


class MalformedHookMessageError(IngestError):
    """The bytes are not a hook message: not JSON, not an object, or an envelope field is missing or wrong."""


class ForeignTenantError(IngestError):
    """The message names a tenant other than the one its subject (its publisher's credential) is for."""
