"""Gateway processes beside each other on one nats-server: each ``python -m codememory.gateway.main``
with its own data directory (its own Qdrant Edge shard, its own ordered consumers of LOG)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from codememory.runtime.natsd import NatsServer

TOKEN = "tok"  # tenant alpha, admin too (Status)
META = (("authorization", f"Bearer {TOKEN}"),)


@contextmanager
def gateways(tmp_path: Path, addresses: Sequence[str]) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """One gateway per address (the same address twice: both listen on it, SO_REUSEPORT), serving;
    yields the nats-server's URL and the processes."""
    with NatsServer(tmp_path / "nats") as server:
        env = {
            **os.environ,
            "CODEMEMORY_HOME": str(tmp_path / "home"),
            "CODEMEMORY_NATS_URL": server.url,
            "CODEMEMORY_GATEWAY_TOKENS": f"{TOKEN}=alpha",
            "CODEMEMORY_GATEWAY_ADMIN_TOKENS": TOKEN,
            "CODEMEMORY_GATEWAY_MODEL_CACHE": str(tmp_path / "models"),
            "HF_HUB_OFFLINE": "1",
        }
        logs = [tmp_path / f"gateway-{i}.log" for i in range(len(addresses))]
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "codememory.gateway.main"],
                env={
                    **env,
                    "CODEMEMORY_GATEWAY_LISTEN": address,
                    "CODEMEMORY_GATEWAY_DATA_DIR": str(tmp_path / f"gateway-{i}"),
                },
                stdout=log.open("wb"),
                stderr=subprocess.STDOUT,
            )
            for i, (address, log) in enumerate(zip(addresses, logs, strict=True))
        ]
        try:
            deadline = time.monotonic() + 45
            while not all("gateway_serving" in log.read_text(errors="replace") for log in logs):
                if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
                    tails = "\n".join(log.read_text(errors="replace")[-2000:] for log in logs)
                    raise AssertionError(f"the gateways did not all start:\n{tails}")
                time.sleep(0.2)
            yield server.url, processes
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
