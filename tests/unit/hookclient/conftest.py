"""Fixtures for the hook client: a real nats-server with a fresh HOOKS stream, and hook runners.

The stream uses limits retention (not the production work queue) so tests can read back what the
hook published, in order, by sequence number.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.js.client import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from codememory.hookclient.settings import HookSettings
from codememory.runtime.natsd import NatsServer
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

STORE_NOT_CREATED = 10049  # nats-server's "error creating store for stream"
HOOK_CODE = "import sys; from codememory.hookclient.main import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def hook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    with NatsServer(tmp_path_factory.mktemp("hook-nats")) as server:
        yield server


@pytest.fixture
async def js_client(hook_server: NatsServer) -> AsyncIterator[tuple[Client, JetStreamContext]]:
    client = await nats.connect(hook_server.url)
    js = client.jetstream()
    with contextlib.suppress(NotFoundError):
        await js.delete_stream("HOOKS")
    for attempt in range(50):
        try:
            await js.add_stream(name="HOOKS", subjects=["cm.hooks.>"], duplicate_window=120.0)
            break
        except APIError as exc:  # the deleted stream's files are still being removed (CI saw it once)
            if exc.err_code != STORE_NOT_CREATED or attempt == 49:
                raise
            await asyncio.sleep(0.1)
    yield client, js
    await client.close()


@pytest.fixture
def settings(tmp_path: Path, hook_server: NatsServer) -> HookSettings:
    return HookSettings(home=str(tmp_path / "home"), nats_url=hook_server.url)


class HookKit:
    """Helpers the hook tests share (fixtures, because test dirs are not packages)."""

    data = HOOKS_DATA

    @staticmethod
    def sample(name: str) -> bytes:
        return (HOOKS_DATA / name).read_bytes()

    @staticmethod
    async def stream_messages(js: JetStreamContext) -> list[tuple[str, dict[str, str], dict[str, Any]]]:
        """(subject, headers, body) of every message in HOOKS, in stream order."""
        info = await js.stream_info("HOOKS")
        if not info.state.messages:
            return []
        out = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            msg = await js.get_msg("HOOKS", seq)
            out.append((msg.subject, dict(msg.headers or {}), json.loads(msg.data or b"null")))
        return out

    @staticmethod
    def env(home: Path, nats_url: str | None, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODEMEMORY_")}
        env["CODEMEMORY_HOME"] = str(home)
        if nats_url:
            env["CODEMEMORY_NATS_URL"] = nats_url
        env.update(extra)
        return env

    @staticmethod
    def run_process(
        agent: str, stdin: bytes, env: dict[str, str], timeout: float = 10.0
    ) -> subprocess.CompletedProcess[bytes]:
        """The hook as an agent runs it: a fresh interpreter, stdin in, exit code and stdout out."""
        return subprocess.run(
            [sys.executable, "-c", HOOK_CODE, "--agent", agent],
            input=stdin,
            env=env,
            capture_output=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture
def kit() -> type[HookKit]:
    return HookKit
