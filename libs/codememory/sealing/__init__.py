"""Encryption at rest of personal text in LOG, and its erasure by destroying keys (docs/security.md)."""

from codememory.sealing.erase import ErasePlan, Scope, derived, destroy, late, plan
from codememory.sealing.fields import SEALED_FIELDS, Record, companion_leaves, record_of
from codememory.sealing.filekeys import FileKeyStore
from codememory.sealing.ids import keyed_id, text_id
from codememory.sealing.keys import KeyRing
from codememory.sealing.keystore import KeyStore, KeyStoreError, MemoryKeyStore
from codememory.sealing.sealer import ERASED, PREFIX, UNAVAILABLE, Sealer, is_token
from codememory.sealing.settings import SealingSettings, install_sealing

__all__ = [
    "ERASED",
    "PREFIX",
    "SEALED_FIELDS",
    "UNAVAILABLE",
    "ErasePlan",
    "FileKeyStore",
    "KeyRing",
    "KeyStore",
    "KeyStoreError",
    "MemoryKeyStore",
    "Record",
    "Scope",
    "Sealer",
    "SealingSettings",
    "companion_leaves",
    "derived",
    "destroy",
    "install_sealing",
    "is_token",
    "keyed_id",
    "late",
    "plan",
    "record_of",
    "text_id",
]
