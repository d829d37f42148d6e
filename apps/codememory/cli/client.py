"""A gRPC client for the CLI: finds the running stack from the home and authenticates with its token."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from codememory.runtime.home import local_token, read_runtime
from codememory.v1 import code_pb2_grpc, memory_pb2_grpc


@dataclass(frozen=True)
class Connection:
    stub: memory_pb2_grpc.MemoryServiceStub
    code: code_pb2_grpc.CodeServiceStub
    metadata: tuple[tuple[str, str], ...]
    timeout: float


@contextmanager
def connect(home: Path, *, timeout: float = 30.0) -> Iterator[Connection]:
    address = os.environ.get("CODEMEMORY_GRPC_ADDRESS") or read_runtime(home).grpc_address
    token = os.environ.get("CODEMEMORY_TOKEN") or local_token(home)
    with grpc.insecure_channel(address) as channel:
        yield Connection(
            memory_pb2_grpc.MemoryServiceStub(channel),
            code_pb2_grpc.CodeServiceStub(channel),
            (("authorization", f"Bearer {token}"),),
            timeout,
        )
