"""Who may do what on the bus: NATS users and their subject permissions, derived from the topology.

Every service gets its own user whose allow-lists follow from its entry in ``codememory.topology``
(its durable consumers, whether it follows LOG, appends to LOG, answers or sends requests, reads
other streams), so a new service gets exactly its permissions by being listed there. Nothing is
allowed that is not listed (NATS denies what an allow-list leaves out). Every user receives replies
on its own inbox, ``_INBOX_<user>`` (``subjects.inbox``: the prefix every connection of a user is
made with, ``BusCredentials``), which no other service and no hook may read: one service cannot
overhear the replies (JetStream API answers, pulled messages, context answers) of another.

A hook user is bound to one tenant: it may publish ``cm.hooks.<tenant>.>``, ask
``cm.rpc.<tenant>.context`` and ``cm.rpc.<tenant>.forgetting`` and read its own inbox, nothing
else; ingest and the gateway take the tenant from the subject, so a hook credential is the tenant.
``admin`` (the CLI's ``log`` and ``dlq``, backups) may do everything. ``up`` is the one-process
stack: all services on one broker, the union of their permissions.

JetStream's API is itself subjects: a service may create the streams when they are missing (a create
never changes an existing stream; update, delete and purge are never granted), create, inspect and
pull from its own durable consumers, and create, pull from and delete the ephemeral consumers with
which it reads a stream whole (a limit of NATS subjects: those grants name the stream, not the
consumer, so a reader of LOG could also pull from another consumer of LOG).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from codememory import subjects
from codememory.topology import DLQ, HOOKS, LOG, REDRIVE, SERVICES, Consumer, Service, durable_consumers

STREAMS = (HOOKS, LOG, DLQ, REDRIVE)
ADMIN = "admin"
ONE_PROCESS = "up"
HOOK_PREFIX = "hook-"
API = "$JS.API"


@dataclass(frozen=True)
class Permissions:
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    allow_responses: bool = False


@dataclass(frozen=True)
class BusUser:
    name: str
    password: str  # the secret itself, or ``$VARIABLE`` for the server to read from its environment
    permissions: Permissions | None  # None: everything (admin)


def hook_inbox(tenant: str) -> str:
    """The reply-subject prefix of a tenant's hook user (``hookclient.wire`` builds the same)."""
    return subjects.inbox(hook_user(tenant))


def hook_user(tenant: str) -> str:
    return HOOK_PREFIX + subjects.token(tenant)


def _durable(consumer: Consumer) -> list[str]:
    s, d = consumer.stream, consumer.durable
    return [
        f"{API}.CONSUMER.CREATE.{s}.{d}",
        f"{API}.CONSUMER.CREATE.{s}.{d}.>",
        f"{API}.CONSUMER.DURABLE.CREATE.{s}.{d}",
        f"{API}.CONSUMER.INFO.{s}.{d}",
        f"{API}.CONSUMER.MSG.NEXT.{s}.{d}",
        f"$JS.ACK.{s}.{d}.>",
    ]


def _reader(stream: str) -> list[str]:
    """Ephemeral and ordered consumers reading ``stream`` whole."""
    return [
        f"{API}.CONSUMER.CREATE.{stream}",
        f"{API}.CONSUMER.CREATE.{stream}.>",
        f"{API}.CONSUMER.INFO.{stream}.*",
        f"{API}.CONSUMER.MSG.NEXT.{stream}.*",
        f"{API}.CONSUMER.DELETE.{stream}.*",
        f"$JS.FC.{stream}.>",
    ]


def service_permissions(service: Service) -> Permissions:
    publish = [f"{API}.INFO"]
    publish += [f"{API}.STREAM.{op}.{s}" for s in STREAMS for op in ("INFO", "CREATE")]
    for consumer in (*service.consumers, service.redrive):
        publish += _durable(consumer)
    publish.append(subjects.dead_letter(service.name))
    if service.appends_log:
        publish.append(subjects.LOG_ALL)
    for stream in ((LOG,) if service.follows_log else ()) + service.reads:
        publish += _reader(stream)
    if service.serves_grpc:  # Status reports every durable consumer's lag
        publish += [f"{API}.CONSUMER.INFO.{c.stream}.{c.durable}" for c in durable_consumers()]
    publish += service.asks
    subscribe = [f"{subjects.inbox(service.name)}.>", *service.answers]
    return Permissions(tuple(dict.fromkeys(publish)), tuple(subscribe), bool(service.answers))


def one_process_permissions(services: Sequence[Service] = SERVICES) -> Permissions:
    """The ``up`` user: every service on one broker, which asks with ``up``'s own inbox."""
    each = [service_permissions(s) for s in services]
    publish = dict.fromkeys(p for perms in each for p in perms.publish)
    inboxes = {f"{subjects.inbox(s.name)}.>" for s in services}
    answers = (s for perms in each for s in perms.subscribe if s not in inboxes)
    subscribe = dict.fromkeys([f"{subjects.inbox(ONE_PROCESS)}.>", *answers])
    return Permissions(tuple(publish), tuple(subscribe), any(p.allow_responses for p in each))


def hook_permissions(tenant: str) -> Permissions:
    """Publish this tenant's hooks, ask for its context and whether an edit undid an instruction (the
    reviews service); read the replies; nothing else."""
    token = subjects.token(tenant)
    return Permissions(
        publish=(f"cm.hooks.{token}.>", subjects.context_request(token), subjects.forgetting_request(token)),
        subscribe=(f"{hook_inbox(tenant)}.>",),
    )


def bus_users(passwords: Mapping[str, str], hook_tenants: Iterable[str]) -> list[BusUser]:
    """Every user: admin, up, one per service, one per hook tenant; ``passwords`` by user name."""
    users = [
        BusUser(ADMIN, passwords[ADMIN], None),
        BusUser(ONE_PROCESS, passwords[ONE_PROCESS], one_process_permissions()),
    ]
    users += [BusUser(s.name, passwords[s.name], service_permissions(s)) for s in SERVICES]
    users += [
        BusUser(hook_user(t), passwords[hook_user(t)], hook_permissions(t))
        for t in dict.fromkeys(hook_tenants)
    ]
    return users


def user_names(hook_tenants: Iterable[str]) -> list[str]:
    return [ADMIN, ONE_PROCESS, *(s.name for s in SERVICES), *(hook_user(t) for t in hook_tenants)]


def _quoted(values: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def authorization_block(users: Sequence[BusUser]) -> str:
    """The ``authorization { users = [...] }`` block of nats-server's configuration file."""
    lines = ["authorization {", "  users = ["]
    for user in users:
        password = user.password if user.password.startswith("$") else json.dumps(user.password)
        entry = f"    {{user: {json.dumps(user.name)}, password: {password}"
        perms = user.permissions
        if perms is not None:
            entry += (
                f",\n      permissions: {{\n        publish: {{allow: {_quoted(perms.publish)}}}"
                f",\n        subscribe: {{allow: {_quoted(perms.subscribe)}}}"
            )
            if perms.allow_responses:
                entry += ",\n        allow_responses: true"
            entry += "\n      }"
        lines.append(entry + "}")
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def env_variable(user: str) -> str:
    """The environment variable a deployed server reads ``user``'s password from."""
    return "CM_NATS_PASSWORD_" + subjects.token(user).upper().replace("-", "_")
