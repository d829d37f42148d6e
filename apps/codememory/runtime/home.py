"""The codememory home: where the embedded stack keeps its data, and how clients find it.

``runtime.json`` is written by ``codememory up`` once everything listens (NATS URL, gRPC address) and
removed when it stops; the hook and the CLI read it. ``token`` holds the local bearer token, created
on first use and readable by the owner only.
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


def runtime_file(home: Path) -> Path:
    return home / "runtime.json"


def write_runtime(home: Path, runtime: Runtime) -> None:
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / "runtime.json.tmp"
    tmp.write_text(
        json.dumps({"nats_url": runtime.nats_url, "grpc_address": runtime.grpc_address, "pid": runtime.pid})
    )
    os.replace(tmp, runtime_file(home))


def read_runtime(home: Path) -> Runtime:
    try:
        data = json.loads(runtime_file(home).read_text())
        return Runtime(
            nats_url=str(data["nats_url"]), grpc_address=str(data["grpc_address"]), pid=int(data["pid"])
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
