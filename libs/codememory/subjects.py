"""Every NATS subject codememory uses, built in one place.

Subjects carry routing, never authority: the first token after the prefix is the tenant (as a
sanitised token), the rest names the kind. Stdlib only, because the hook process imports it.

    cm.hooks.<tenant>.<agent>.<event>   raw hook payloads (stream HOOKS)
    cm.log.<tenant>.<event tag>         domain events (stream LOG); the tag's dots give the aggregate
    cm.dlq.<service>                    what a service could not process, with the reason (stream DLQ)
    cm.redrive.<service>                dead letters put back for that service once fixed (stream REDRIVE)
    cm.rpc.<tenant>.context             the hook's session-context request (core NATS request-reply)
    cm.rpc.<tenant>.consolidate         run a consolidation cycle now (the gateway asks the service)
    cm.rpc.<tenant>.forgetting          did this edit undo an instructed change (the hook asks reviews)
    _INBOX_<user>.<id>                  replies to one NATS user's requests: only that user may read them
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

HOOKS_ALL = "cm.hooks.>"
LOG_ALL = "cm.log.>"
DLQ_ALL = "cm.dlq.>"
REDRIVE_ALL = "cm.redrive.>"
CONTEXT_REQUESTS = "cm.rpc.*.context"
CONSOLIDATE_REQUESTS = "cm.rpc.*.consolidate"
FORGETTING_REQUESTS = "cm.rpc.*.forgetting"


INBOX = "_INBOX"  # nats-py's default reply prefix: an anonymous client's


def inbox(user: str) -> str:
    """The reply-subject prefix of NATS user ``user``: every connection of a user (the services' brokers,
    the CLI, ``codememory up``, the hook) asks with it, and its permissions let it read only that one."""
    return f"{INBOX}_{token(user)}" if user else INBOX


def token(value: str) -> str:
    """A NATS subject token from any string: no dots, spaces or wildcards."""
    return _UNSAFE.sub("_", value) or "unknown"


def hook(tenant: str, agent: str, event: str) -> str:
    return f"cm.hooks.{token(tenant)}.{token(agent)}.{token(event)}"


def log(tenant: str, tag: str) -> str:
    """One event in LOG; ``tag`` is the event struct's tag (``memory.stored``), dots kept."""
    return f"cm.log.{token(tenant)}.{tag}"


def log_of_kind(tag: str) -> str:
    """Every tenant's events of one tag: a consumer's filter subject."""
    return f"cm.log.*.{tag}"


def dead_letter(service: str) -> str:
    return f"cm.dlq.{token(service)}"


def redrive(service: str) -> str:
    return f"cm.redrive.{token(service)}"


def context_request(tenant: str) -> str:
    return f"cm.rpc.{token(tenant)}.context"


def consolidate_request(tenant: str) -> str:
    return f"cm.rpc.{token(tenant)}.consolidate"


def forgetting_request(tenant: str) -> str:
    return f"cm.rpc.{token(tenant)}.forgetting"


def tenant_of(subject: str) -> str:
    """The tenant token of a hook, log or context subject (``cm.<kind>.<tenant>...``)."""
    parts = subject.split(".")
    return parts[2] if len(parts) > 2 else ""
