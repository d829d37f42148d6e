"""The codememory home: where the embedded stack keeps its data, and how clients find it.

``runtime.json`` is written by ``codememory up`` once everything listens (NATS URL, gRPC address) and
removed when it stops; the hook and the CLI read it. ``token`` holds the local bearer token, created
on first use and readable by the owner only; ``secrets/`` (0700) the bus passwords and the hook's
credential (0600 each), kept across restarts.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path


class NotRunningError(RuntimeError):
    """No ``codememory up`` is running for this home."""


@dataclass(frozen=True)
class Runtime:
    nats_url: str
    grpc_address: str
    pid: int
    nats_ca: str = ""  # the CA of the embedded server's certificate (``up --tls``); not a secret
    grpc_ca: str = ""  # the CA of the gateway's certificate (``up --tls``: the same local CA)


def runtime_file(home: Path) -> Path:
    return home / "runtime.json"


def write_runtime(home: Path, runtime: Runtime) -> None:
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / "runtime.json.tmp"
    tmp.write_text(
        json.dumps(
            {
                "nats_url": runtime.nats_url,
                "grpc_address": runtime.grpc_address,
                "pid": runtime.pid,
                "nats_ca": runtime.nats_ca,
                "grpc_ca": runtime.grpc_ca,
            }
        )
    )
    os.replace(tmp, runtime_file(home))


def read_runtime(home: Path) -> Runtime:
    try:
        data = json.loads(runtime_file(home).read_text())
        return Runtime(
            nats_url=str(data["nats_url"]),
            grpc_address=str(data["grpc_address"]),
            pid=int(data["pid"]),
            nats_ca=str(data.get("nats_ca") or ""),
            grpc_ca=str(data.get("grpc_ca") or ""),
        )
    except (OSError, ValueError, KeyError) as exc:
        raise NotRunningError(
            f"codememory is not running for {home} (start it with `codememory up`)"
        ) from exc


def clear_runtime(home: Path) -> None:
    runtime_file(home).unlink(missing_ok=True)


def local_token(home: Path) -> str:
    path = home / "token"
    if path.is_file():
        return path.read_text().strip()
    home.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token)
    return token


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` readable by the owner only (0600), atomically; the directory is 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def secrets_dir(home: Path) -> Path:
    return home / "secrets"


def bus_passwords(home: Path, users: list[str]) -> dict[str, str]:
    """The NATS password of every user in ``users``, created on first use and kept (``secrets/bus.json``).

    A user seen for the first time (a new service, a new hook tenant) gets a new password; the others
    keep theirs, so a hook configured yesterday still connects.
    """
    path = secrets_dir(home) / "bus.json"
    try:
        known = json.loads(path.read_text()).get("passwords", {})
    except (OSError, ValueError, AttributeError):
        known = {}
    passwords = {str(k): str(v) for k, v in known.items()} if isinstance(known, dict) else {}
    missing = [u for u in users if u not in passwords]
    for user in missing:
        passwords[user] = secrets.token_urlsafe(24)
    if missing or not path.is_file():
        _write_private(path, json.dumps({"passwords": passwords}, indent=1))
    return passwords


def write_hook_credentials(home: Path, tenant: str, user: str, password: str, *, default: bool) -> Path:
    """``secrets/hook-<tenant>.json`` (and ``secrets/hook.json`` for the stack's own tenant): what the
    hook reads; the tenant in it is the one its user may publish for."""
    text = json.dumps({"user": user, "password": password, "tenant": tenant})
    path = secrets_dir(home) / f"{user}.json"
    _write_private(path, text)
    if default:
        _write_private(secrets_dir(home) / "hook.json", text)
    return path


def admin_credentials(home: Path) -> tuple[str, str] | None:
    """The admin user and password of a home's stack, when ``codememory up`` made them."""
    try:
        passwords = json.loads((secrets_dir(home) / "bus.json").read_text())["passwords"]
        return "admin", str(passwords["admin"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def grpc_root_certificate(home: Path) -> bytes | None:
    """The CA a gRPC client of this home must trust (``CODEMEMORY_GRPC_CA`` or runtime.json's
    ``grpc_ca``); None: the gateway speaks plain gRPC."""
    path = os.environ.get("CODEMEMORY_GRPC_CA", "")
    if not path:
        try:
            path = str(json.loads(runtime_file(home).read_text()).get("grpc_ca") or "")
        except (OSError, ValueError, AttributeError):
            path = ""
    return Path(path).read_bytes() if path else None
