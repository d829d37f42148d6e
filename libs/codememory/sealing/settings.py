"""Where the key store is, and whether LOG is sealed: ``CODEMEMORY_SEALING`` and ``CODEMEMORY_KEYSTORE_DIR``.

Sealing is on unless ``CODEMEMORY_SEALING=0``. The key store is a directory, ``<home>/keys`` by
default (``codememory up``); in a deployment it is a volume mounted into every service at the same
path (compose: the ``keys`` volume; Kubernetes: the ``codememory-keys`` claim).
``CODEMEMORY_KEYSTORE_RECHECK_S`` (0.05): how long this process may go on using a key that another
process has destroyed (it reads the store's erasure generation at most that often). ``install`` puts a
``Sealer`` into the codec for the whole process; every program calls it once at start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codememory.events.codec import install_sealer
from codememory.sealing.filekeys import FileKeyStore
from codememory.sealing.sealer import Sealer
from codememory.settings import default_home, env_bool, env_float, env_str

__all__ = ["SealingSettings", "install_sealing"]


@dataclass(frozen=True, kw_only=True)
class SealingSettings:
    enabled: bool = True
    keystore_dir: Path
    recheck_s: float = 0.05  # how stale this process's view of erasures by another process may be

    @classmethod
    def from_env(cls, service: str = "sealing", environ: Mapping[str, str] | None = None) -> SealingSettings:
        default = str(default_home(environ) / "keys")
        return cls(
            enabled=env_bool(service, "sealing", True, environ),
            keystore_dir=Path(env_str(service, "keystore_dir", default, environ)).expanduser(),
            recheck_s=env_float(service, "keystore_recheck_s", 0.05, environ),
        )


def install_sealing(settings: SealingSettings) -> Sealer | None:
    """The process's sealer, installed in the codec (None, and nothing installed, when sealing is off)."""
    if not settings.enabled:
        install_sealer(None)
        return None
    sealer = Sealer(FileKeyStore(settings.keystore_dir, recheck_s=settings.recheck_s))
    install_sealer(sealer)
    return sealer
