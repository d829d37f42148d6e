"""Settings of the hook process, read once from the environment and passed explicitly.

The hook runs as a fresh process for every agent event, so this module stays on the stdlib and
avoids ``dataclasses`` (which pulls in ``inspect``, ~10 ms here): ``HookSettings`` is a small
immutable slots class instead. The NATS URL comes from ``CODEMEMORY_NATS_URL`` or else from the
``runtime.json`` that ``codememory up`` writes; with neither, the hook only spools.

Credentials: ``CODEMEMORY_HOOK_CREDENTIALS`` or else ``<home>/secrets/hook.json`` (written 0600 by
``codememory up``) gives the NATS user, its password and the tenant that user may publish for; the
tenant is then the credential's, whatever ``CODEMEMORY_TENANT`` says (the server would refuse any
other). Without that file, ``CODEMEMORY_NATS_USER``/``CODEMEMORY_NATS_PASSWORD`` (a deployment's
provisioned hook user). ``CODEMEMORY_NATS_CA`` or runtime.json's ``nats_ca``: the CA of a TLS server.
"""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~8 ms
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["HookSettings", "log_line"]

_DEFAULT_TENANT = "local"
_DEFAULT_HOOK_TIMEOUT_MS = 1000
_DEFAULT_CONTEXT_TIMEOUT_MS = 400
_DEFAULT_MAX_FIELD = 16384
_LOG_MAX_BYTES = 1024 * 1024


def _int_env(env: Mapping[str, str], name: str, default: int, minimum: int) -> int:
    try:
        return max(minimum, int(env.get(name, "") or default))
    except ValueError:
        return default


def _json_file(path: str) -> dict[str, object]:
    """A JSON object from ``path``; empty when the file is absent, unreadable or not an object."""
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _text(data: dict[str, object], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


class HookSettings:
    """Immutable settings; build with ``from_env()`` or the keyword constructor in tests."""

    __slots__ = (
        "context_timeout_s",
        "home",
        "hook_timeout_s",
        "max_field",
        "nats_ca",
        "nats_password",
        "nats_url",
        "nats_user",
        "tenant",
    )

    home: str
    nats_url: str | None
    nats_user: str
    nats_password: str
    nats_ca: str
    tenant: str
    hook_timeout_s: float
    context_timeout_s: float
    max_field: int

    def __init__(
        self,
        *,
        home: str,
        nats_url: str | None = None,
        nats_user: str = "",
        nats_password: str = "",
        nats_ca: str = "",
        tenant: str = _DEFAULT_TENANT,
        hook_timeout_s: float = _DEFAULT_HOOK_TIMEOUT_MS / 1000,
        context_timeout_s: float = _DEFAULT_CONTEXT_TIMEOUT_MS / 1000,
        max_field: int = _DEFAULT_MAX_FIELD,
    ) -> None:
        values = {
            "home": home,
            "nats_url": nats_url,
            "nats_user": nats_user,
            "nats_password": nats_password,
            "nats_ca": nats_ca,
            "tenant": tenant or _DEFAULT_TENANT,
            "hook_timeout_s": hook_timeout_s,
            "context_timeout_s": context_timeout_s,
            "max_field": max(256, max_field),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HookSettings:
        env = os.environ if env is None else env
        home = os.path.abspath(os.path.expanduser(env.get("CODEMEMORY_HOME") or "~/.codememory"))
        runtime = _json_file(os.path.join(home, "runtime.json"))
        credentials = _json_file(
            env.get("CODEMEMORY_HOOK_CREDENTIALS") or os.path.join(home, "secrets", "hook.json")
        )
        bound = _text(credentials, "user") and _text(credentials, "password")
        return cls(
            home=home,
            nats_url=env.get("CODEMEMORY_NATS_URL") or _text(runtime, "nats_url"),
            nats_user=(_text(credentials, "user") if bound else env.get("CODEMEMORY_NATS_USER")) or "",
            nats_password=(_text(credentials, "password") if bound else env.get("CODEMEMORY_NATS_PASSWORD"))
            or "",
            nats_ca=env.get("CODEMEMORY_NATS_CA") or _text(runtime, "nats_ca") or "",
            tenant=(_text(credentials, "tenant") if bound else None)
            or env.get("CODEMEMORY_TENANT")
            or _DEFAULT_TENANT,
            hook_timeout_s=_int_env(env, "CODEMEMORY_HOOK_TIMEOUT_MS", _DEFAULT_HOOK_TIMEOUT_MS, 10) / 1000,
            context_timeout_s=_int_env(env, "CODEMEMORY_CONTEXT_TIMEOUT_MS", _DEFAULT_CONTEXT_TIMEOUT_MS, 0)
            / 1000,
            max_field=_int_env(env, "CODEMEMORY_HOOK_MAX_FIELD", _DEFAULT_MAX_FIELD, 256),
        )

    def replace(self, **changes: object) -> HookSettings:
        """A copy with some fields changed (the instance itself is immutable)."""
        values: dict[str, object] = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return HookSettings(**values)  # type: ignore[arg-type]

    @property
    def spool_path(self) -> str:
        return os.path.join(self.home, "spool", "hooks.jsonl")

    @property
    def log_path(self) -> str:
        return os.path.join(self.home, "logs", "hook.log")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"HookSettings is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"HookSettings is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookSettings):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in self.__slots__))

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{n}={'***' if n == 'nats_password' and self.nats_password else repr(getattr(self, n))}"
            for n in self.__slots__
        )
        return f"HookSettings({fields})"


def log_line(settings: HookSettings | None, text: str) -> None:
    """Append one line to the hook log; never raises."""
    try:
        if settings is None:
            settings = HookSettings.from_env()
        path = settings.log_path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if os.stat(path).st_size > _LOG_MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(f"{stamp} pid={os.getpid()} {text}\n")
    except BaseException:
        pass
