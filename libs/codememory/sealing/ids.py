"""Ids made from what a memory says, keyed so that they confirm no guess of it.

An imported memory without an id gets one derived from its text (with its time, type and scope), so
importing the same file twice stores each memory once. A plain digest of the text would outlive an
erasure of that text: anyone reading LOG (or a backup of it) could hash a guessed text and compare.
The id is therefore an HMAC-SHA256 under the tenant's id key (``KeyRing.id_key``, in the key store,
never in LOG): the same text gives the same id for whoever holds the key store, and nothing to anyone
holding only LOG. With sealing off there is no key store and nothing is sealed either: the id is the
unkeyed ``deterministic_id``.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid

from codememory.events import deterministic_id
from codememory.events.codec import installed_sealer
from codememory.sealing.sealer import Sealer

__all__ = ["keyed_id", "text_id"]


def keyed_id(key: bytes, *parts: str) -> str:
    """A UUID (version 4 layout) from HMAC-SHA256 of ``parts`` under ``key``."""
    message = "\0".join(parts).encode("utf-8", "surrogatepass")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def text_id(tenant: str, *parts: str) -> str:
    """The id of what ``parts`` say for ``tenant``: keyed by the tenant's id key when this process
    seals (``codememory.events.codec.installed_sealer``), else ``deterministic_id``."""
    sealer = installed_sealer()
    if isinstance(sealer, Sealer):
        return keyed_id(sealer.keys.id_key(tenant), tenant, *parts)
    return deterministic_id(tenant, *parts)
