"""The CodeService on a free port over an in-memory LOG and a real Edge shard: no NATS, no model.

``code_stack`` follows the log into the code projection (as the gateway's second consumer does), so
RecordCode returns once its facts are applied. ``shop`` is a small repository recorded through
RecordCode: two Python files extracted by the real parser and one old commit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from wordhash import DIM, WordHashEmbedder  # type: ignore[import-not-found]

from codememory.code import extract_file
from codememory.codefacts import CodeFact, encode_fact
from codememory.codegraph import TenantGraphs
from codememory.codesearch import CodeIndex
from codememory.codesearch.index import open_code_index
from codememory.codesearch.prepared import PreparedFiles
from codememory.events import CommitRecorded, FileChange, InMemoryEventLog
from codememory.gateway.codecore import CodeCore
from codememory.gateway.coderpc import CodeServicer
from codememory.lexical import SparseEncoder
from codememory.projection import CodeProjection, LiveProjection
from codememory.redaction import clean_text
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import code_pb2_grpc

META = (("authorization", "Bearer tok-t1"),)
OTHER_TENANT = (("authorization", "Bearer tok-t2"),)
OLD = 1_600_000_000.0  # September 2020: long before any test runs

PAY = b"""def validate(amount):
    return amount > 0


class Gateway:
    def charge(self, amount):
        validate(amount)
        return round(amount, 2)


def settle(amount):
    return validate(amount)
"""
API = b"""from shop.pay import settle


def checkout(amount):
    return settle(amount)
"""


def shop_facts() -> list[CodeFact]:
    commit = CommitRecorded(
        repo="shop",
        sha="a" * 40,
        authored_at=OLD,
        message="first",
        files=(
            FileChange(path="shop/pay.py", status="added"),
            FileChange(path="shop/api.py", status="added"),
        ),
    )
    return [extract_file("shop", "shop/pay.py", PAY), extract_file("shop", "shop/api.py", API), commit]


def facts_message(*facts: CodeFact | bytes) -> list[cpb.CodeFact]:
    return [cpb.CodeFact(event_json=f if isinstance(f, bytes) else encode_fact(f)) for f in facts]


@dataclass
class CodeStack:
    core: CodeCore
    log: InMemoryEventLog
    stub: code_pb2_grpc.CodeServiceStub

    async def record(self, *facts: CodeFact | bytes) -> cpb.RecordCodeResponse:
        response: cpb.RecordCodeResponse = await self.stub.RecordCode(facts_message(*facts), metadata=META)
        return response

    async def fails(self, method: str, request: object, metadata: object = META) -> grpc.StatusCode:
        """The status code of a call that must fail."""
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await getattr(self.stub, method)(request, metadata=metadata)
        code: grpc.StatusCode = caught.value.code()
        return code


def code_core(tmp_path: Path, log: InMemoryEventLog) -> CodeCore:
    shard = open_code_index(tmp_path / "code", DIM)
    encoder = SparseEncoder()
    prepared = PreparedFiles(encoder)  # as the gateway wires it: the intake prepares, the fold takes
    index = CodeIndex(shard, encoder=encoder)
    projection = CodeProjection(TenantGraphs(), index, shard=shard, prepared=prepared)
    return CodeCore(
        LiveProjection(projection, name="code"),
        log,
        WordHashEmbedder(),
        clean_text=clean_text,
        write_wait_s=5.0,
        prepared=prepared,
    )


async def _follow(core: CodeCore, log: InMemoryEventLog) -> None:
    while True:
        records = [r async for r in log.read(core.live.seq + 1)]
        if records:
            await core.live.apply(records)
        await asyncio.sleep(0.005)


@pytest.fixture
async def code_stack(tmp_path: Path) -> AsyncIterator[CodeStack]:
    log = InMemoryEventLog()
    core = code_core(tmp_path, log)
    follower = asyncio.create_task(_follow(core, log))
    server = grpc.aio.server()
    code_pb2_grpc.add_CodeServiceServicer_to_server(
        CodeServicer(core, {"tok-t1": "t1", "tok-t2": "t2"}), server
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield CodeStack(core, log, code_pb2_grpc.CodeServiceStub(channel))
    await server.stop(None)
    follower.cancel()
    core.live.projection.shard.close()


@pytest.fixture
async def shop(code_stack: CodeStack) -> CodeStack:
    await code_stack.record(*shop_facts())
    code_stack.core.refresh_centrality()
    return code_stack
