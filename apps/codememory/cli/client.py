"""A gRPC client for the CLI: finds the running stack from the home and authenticates with its token."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import grpc
import typer

from codememory.runtime.home import NotRunningError, grpc_root_certificate, local_token, read_runtime
from codememory.settings import default_home
from codememory.v1 import code_pb2_grpc, memory_pb2_grpc


@dataclass(frozen=True)
class Connection:
    stub: memory_pb2_grpc.MemoryServiceStub
    code: code_pb2_grpc.CodeServiceStub
    metadata: tuple[tuple[str, str], ...]
    timeout: float
    channel: grpc.Channel | None = None  # for the stubs of other services (call_service)


@contextmanager
def connect(home: Path, *, timeout: float = 30.0) -> Iterator[Connection]:
    address = os.environ.get("CODEMEMORY_GRPC_ADDRESS") or read_runtime(home).grpc_address
    token = os.environ.get("CODEMEMORY_TOKEN") or local_token(home)
    ca = grpc_root_certificate(home)  # up --tls: the local CA
    channel = (
        grpc.secure_channel(address, grpc.ssl_channel_credentials(ca))
        if ca
        else grpc.insecure_channel(address)
    )
    with channel:
        yield Connection(
            memory_pb2_grpc.MemoryServiceStub(channel),
            code_pb2_grpc.CodeServiceStub(channel),
            (("authorization", f"Bearer {token}"),),
            timeout,
            channel,
        )


def fail(message: str, code: int = 1) -> NoReturn:
    """One line on stderr (``codememory: message``) and exit with ``code`` (2: a usage error)."""
    typer.echo(f"codememory: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def reported_failures() -> Iterator[None]:
    """A stack that is not running, or a gRPC status: one line on stderr and exit code 1."""
    try:
        yield
    except NotRunningError as exc:
        typer.echo(f"codememory: {exc}", err=True)
        raise typer.Exit(1) from exc
    except grpc.RpcError as exc:
        typer.echo(f"codememory: {exc.code().name}: {exc.details()}", err=True)
        raise typer.Exit(1) from exc


def call(method: str, request: Any, *, timeout: float = 30.0) -> Any:
    """One MemoryService call for a command, its failures reported (``reported_failures``)."""
    with reported_failures(), connect(default_home(), timeout=timeout) as conn:
        return getattr(conn.stub, method)(request, metadata=conn.metadata, timeout=conn.timeout)


def call_service(
    stub_type: Callable[[grpc.Channel], Any], method: str, request: Any, *, timeout: float = 30.0
) -> Any:
    """One call on another service of the gateway (``stub_type``: its generated stub class)."""
    with reported_failures(), connect(default_home(), timeout=timeout) as conn:
        assert conn.channel is not None
        return getattr(stub_type(conn.channel), method)(request, metadata=conn.metadata, timeout=conn.timeout)
