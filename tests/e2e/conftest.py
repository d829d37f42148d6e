"""One real embedded stack for the end-to-end tests: ``codememory up`` as a subprocess.

It starts its own nats-server (JetStream in a temp home), Qdrant Edge on disk, the real model and the
gRPC gateway on a free port. Two extra tokens map to tenants ``alpha`` and ``beta`` for the tenancy
tests; the local token maps to ``local``. The bus requires credentials: ``Stack.nats_url`` carries the
stack's admin user (``secrets/bus.json``), what the tests use to inspect streams and inject messages.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc

BIN = Path(sys.executable).parent


@dataclass
class Stack:
    home: Path
    nats_url: str
    grpc_address: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]

    def cli(
        self, *args: str, stdin: bytes | None = None, check: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """``codememory ARGS`` against this stack (``env``: more variables, e.g. another tenant's token)."""
        result = subprocess.run(
            [str(BIN / "codememory"), *args],
            input=stdin,
            env={**self.env, **(env or {})},
            capture_output=True,
            timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"codememory {' '.join(args)} failed: {result.stderr.decode()}")
        return result

    def cli_json(self, *args: str) -> dict:  # type: ignore[type-arg]
        return json.loads(self.cli(*args, "--json").stdout)

    def hook(self, agent: str, payload: bytes) -> subprocess.CompletedProcess[bytes]:
        return self.cli("hook", "--agent", agent, stdin=payload)

    def hooks(
        self, calls: Sequence[tuple[str, bytes]], at_once: int = 4
    ) -> list[subprocess.CompletedProcess[bytes]]:
        """``hook`` for each (agent, payload), ``at_once`` hook processes at a time (as an agent's
        parallel tool calls run them), for tests where the order of events does not matter: a prompt
        hook waits for its session context, so one at a time is mostly waiting."""
        with ThreadPoolExecutor(at_once) as pool:
            return list(pool.map(lambda call: self.hook(*call), calls))

    def stub(self) -> memory_pb2_grpc.MemoryServiceStub:
        ca = json.loads((self.home / "runtime.json").read_text()).get("grpc_ca")  # up --tls
        if ca:
            credentials = grpc.ssl_channel_credentials(Path(ca).read_bytes())
            return memory_pb2_grpc.MemoryServiceStub(grpc.secure_channel(self.grpc_address, credentials))
        return memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(self.grpc_address))

    def token(self) -> str:
        return (self.home / "token").read_text().strip()

    def wait_caught_up(self, timeout: float = 60.0) -> pb.StatusResponse:
        stub = self.stub()
        meta = (("authorization", f"Bearer {self.token()}"),)
        deadline = time.monotonic() + timeout
        while True:
            status = stub.Status(pb.StatusRequest(), metadata=meta, timeout=10)
            if (
                status.caught_up
                and not any(status.consumer_pending.values())
                and status.stream_messages["HOOKS"] == 0
            ):
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"not caught up: {status}")
            time.sleep(0.1)


def launch(home: Path, *up_args: str, env: dict[str, str] | None = None, timeout: float = 240) -> Stack:
    """``codememory up`` with ``up_args`` in a subprocess for ``home``; returns once runtime.json exists."""
    full_env = {
        **os.environ,
        "CODEMEMORY_HOME": str(home),
        "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0",
        "CODEMEMORY_GATEWAY_TOKENS": "tok-alpha=alpha,tok-beta=beta",
        "CODEMEMORY_UP_HOOK_TENANTS": "alpha,beta",  # hook credentials for them too (secrets/)
        "CODEMEMORY_GATEWAY_REFLECTION": "1",  # off by default; test_grpc_surface lists the services
        "HF_HUB_OFFLINE": "1",
        "CODEMEMORY_CONSOLIDATE_INTERVAL_S": "0",  # cycles only when a test asks: tests share a stack
        "CODEMEMORY_CONSOLIDATE_SUMMARY_DELAY_S": "0",
        **(env or {}),
    }
    full_env.pop("CODEMEMORY_NATS_URL", None)
    with (home / "up.log").open("ab") as log:
        process = subprocess.Popen(
            [str(BIN / "codememory"), "up", *up_args], env=full_env, stdout=log, stderr=subprocess.STDOUT
        )
    runtime = home / "runtime.json"
    deadline = time.monotonic() + timeout
    while not runtime.is_file():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"codememory up did not start:\n{(home / 'up.log').read_text()[-4000:]}")
        time.sleep(0.2)
    data = json.loads(runtime.read_text())
    return Stack(
        home=home,
        nats_url=admin_url(home, data["nats_url"]),
        grpc_address=data["grpc_address"],
        env=full_env,
        process=process,
    )


def admin_url(home: Path, url: str) -> str:
    """The stack's NATS URL with its admin's credentials: the tests inspect and inject as an operator."""
    password = json.loads((home / "secrets" / "bus.json").read_text())["passwords"]["admin"]
    scheme, _, rest = url.partition("://")
    return f"{scheme}://admin:{password}@{rest}"


def shutdown(stack: Stack) -> None:
    stack.process.send_signal(signal.SIGTERM)
    try:
        stack.process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        stack.process.kill()


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    running = launch(tmp_path_factory.mktemp("home"))
    yield running
    shutdown(running)
