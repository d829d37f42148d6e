"""How a process proves who it is to NATS, and how it reaches it over TLS.

``BusCredentials`` is read once from the environment (``CODEMEMORY_NATS_USER`` and
``CODEMEMORY_NATS_PASSWORD``, per service as ``CODEMEMORY_<SERVICE>_NATS_USER``; ``CODEMEMORY_NATS_CA``
for a server certificate signed by a private CA, ``CODEMEMORY_NATS_CERT``/``_KEY`` for a client
certificate) and turned into the options of a FastStream broker or of ``nats.connect``, with the
user's own reply inbox (``subjects.inbox``: ``_INBOX_<user>``, the only one its permissions let it
read). Every service's broker, the CLI's and ``codememory up``'s connections are made through here.
The password is never part of a URL or a log line: ``repr`` hides it.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from faststream.nats.security import NatsSecurity, NatsUserPassword

from codememory import subjects
from codememory.settings import env_str


@dataclass(frozen=True, kw_only=True)
class TlsFiles:
    ca: str = ""  # PEM of the CA that signed the server certificate (empty: the system's)
    cert: str = ""  # client certificate (mutual TLS), optional
    key: str = ""

    def context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.ca or None)
        if self.cert:
            ctx.load_cert_chain(self.cert, self.key or None)
        return ctx


@dataclass(frozen=True, kw_only=True)
class BusCredentials:
    user: str = ""
    password: str = field(default="", repr=False)
    tls: TlsFiles | None = None

    @classmethod
    def from_env(cls, service: str, environ: Mapping[str, str] | None = None) -> BusCredentials:
        ca = env_str(service, "nats_ca", "", environ)
        cert = env_str(service, "nats_cert", "", environ)
        return cls(
            user=env_str(service, "nats_user", "", environ),
            password=env_str(service, "nats_password", "", environ),
            tls=TlsFiles(ca=ca, cert=cert, key=env_str(service, "nats_key", "", environ))
            if ca or cert
            else None,
        )

    def as_env(self) -> dict[str, str]:
        """The variables a child process reads these credentials back from (``from_env``)."""
        env = {"CODEMEMORY_NATS_USER": self.user, "CODEMEMORY_NATS_PASSWORD": self.password}
        if self.tls is not None:
            env |= {
                "CODEMEMORY_NATS_CA": self.tls.ca,
                "CODEMEMORY_NATS_CERT": self.tls.cert,
                "CODEMEMORY_NATS_KEY": self.tls.key,
            }
        return {k: v for k, v in env.items() if v}

    def broker_options(self) -> dict[str, Any]:
        """Keyword arguments of ``NatsBroker``: its security (user, password, TLS)."""
        tls = self.tls.context() if self.tls is not None else None
        options: dict[str, Any] = {}
        if self.user:
            options["security"] = NatsUserPassword(self.user, self.password, ssl_context=tls)
            options["inbox_prefix"] = subjects.inbox(self.user)
        elif tls is not None:
            options["security"] = NatsSecurity(ssl_context=tls)
        return options

    def connect_options(self) -> dict[str, Any]:
        """Keyword arguments of ``nats.connect``."""
        options: dict[str, Any] = {}
        if self.user:
            options |= {
                "user": self.user,
                "password": self.password,
                "inbox_prefix": subjects.inbox(self.user),
            }
        if self.tls is not None:
            options["tls"] = self.tls.context()
        return options
