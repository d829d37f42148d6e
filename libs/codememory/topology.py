"""The services and the durable consumers they share, named once.

Status, the supervisor (``codememory up --scale``), ``codememory run``, the DLQ commands and the
deployment tests all read this list, so a new service is added here and nowhere else by name. A
service's name is its folder (``services/<name>/``), its module (``codememory.<name>.main``), its
durable consumer (a second one of the same service is ``<name>-<what it reads>``, as its redrive
consumer is ``<name>-redrive``), its DLQ subject and its log field.
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory import subjects
from codememory.events import (
    CommitRecorded,
    Event,
    MemoryEmbedded,
    SymbolsEmbedded,
    SymbolsExtracted,
    ToolObserved,
    kinds_except,
    log_filters,
)
from codememory.settings import SettingsError

HOOKS = "HOOKS"
LOG = "LOG"
DLQ = "DLQ"
REDRIVE = "REDRIVE"


class UnknownServiceError(ValueError):
    """No service has that name."""


@dataclass(frozen=True, kw_only=True)
class Consumer:
    """A durable pull consumer: every replica of its service pulls from it, so they split the work.

    A consumer of LOG names the event ``kinds`` its handler acts on, and the server sends it those
    only (``filter_subjects``); ``filter_subject`` is for the other streams. ``split_from``: the durable
    whose kinds this one took over; made for the first time beside it, it starts where that one has
    acknowledged up to, so an upgrade does not handle all of LOG's kinds again (``bus.durable``).
    """

    stream: str
    durable: str
    filter_subject: str = ""
    kinds: tuple[type[Event], ...] = ()
    split_from: str = ""

    @property
    def filter_subjects(self) -> tuple[str, ...]:
        return log_filters(self.kinds) if self.kinds else (self.filter_subject,)


@dataclass(frozen=True, kw_only=True)
class Service:
    name: str
    consumers: tuple[Consumer, ...] = ()  # shared by replicas; lag on these scales the service
    follows_log: bool = False  # each replica folds all of LOG itself (its own ordered consumer)
    serves_grpc: bool = False
    # what its NATS user may do beyond its consumers (codememory.bus.permissions derives the rest)
    appends_log: bool = True  # publishes events to LOG
    answers: tuple[str, ...] = ()  # core request subjects it replies to
    asks: tuple[str, ...] = ()  # core request subjects it sends requests to
    reads: tuple[str, ...] = ()  # streams it reads whole besides LOG (the gateway lists the DLQ)

    @property
    def module(self) -> str:
        return f"codememory.{self.name}.main"

    @property
    def redrive(self) -> Consumer:
        """Where dead letters of this service come back once their cause is fixed."""
        return Consumer(
            stream=REDRIVE, durable=f"{self.name}-redrive", filter_subject=subjects.redrive(self.name)
        )


INGEST = Service(
    name="ingest", consumers=(Consumer(stream=HOOKS, durable="ingest", filter_subject=subjects.HOOKS_ALL),)
)
EMBED = Service(
    name="embed",
    consumers=(
        # every kind that may carry a memory's text, not the vectors it writes itself (as many as the
        # memories) nor a file's symbols, whose backlog after indexing a repository would hold every
        # memory stored meanwhile back for minutes: they have their own consumer, pulled beside it
        Consumer(
            stream=LOG,
            durable="embed",
            kinds=kinds_except(MemoryEmbedded, SymbolsEmbedded, SymbolsExtracted),
        ),
        Consumer(stream=LOG, durable="embed-symbols", kinds=(SymbolsExtracted,), split_from="embed"),
    ),
    reads=(LOG,),  # a requested model's backfill embeds the memories already in LOG
)
GRAPH = Service(
    name="graph",
    consumers=(Consumer(stream=LOG, durable="graph", kinds=(ToolObserved,)),),
)
GATEWAY = Service(
    name="gateway",
    follows_log=True,
    serves_grpc=True,
    answers=(subjects.CONTEXT_REQUESTS,),
    asks=(subjects.CONSOLIDATE_REQUESTS,),
    reads=(DLQ,),
)
CONSOLIDATE = Service(name="consolidate", follows_log=True, answers=(subjects.CONSOLIDATE_REQUESTS,))

REVIEWS = Service(
    name="reviews",
    consumers=(Consumer(stream=LOG, durable="reviews", kinds=(CommitRecorded, ToolObserved)),),  # judged
    follows_log=True,
    answers=(subjects.FORGETTING_REQUESTS,),
)

SERVICES: tuple[Service, ...] = (INGEST, EMBED, GRAPH, GATEWAY, CONSOLIDATE, REVIEWS)


def service(name: str) -> Service:
    for candidate in SERVICES:
        if candidate.name == name:
            return candidate
    known = ", ".join(s.name for s in SERVICES)
    raise UnknownServiceError(f"no service {name!r}: one of {known}")


def durable_consumers() -> list[Consumer]:
    """Every durable consumer of every service, the redrive ones included."""
    return [c for s in SERVICES for c in (*s.consumers, *((s.redrive,) if s.consumers else ()))]


def parse_scale(spec: str) -> dict[str, int]:
    """``ingest=2,embed=2`` into replicas per service; every service not named runs once."""
    scale = {s.name: 1 for s in SERVICES}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, sep, count = item.partition("=")
        try:
            service(name.strip())
            replicas = int(count)
        except ValueError as exc:  # UnknownServiceError included
            raise SettingsError(f"bad --scale item {item!r}: expected service=replicas ({exc})") from exc
        if not sep or not 1 <= replicas <= 16:
            raise SettingsError(f"bad --scale item {item!r}: replicas must be 1 to 16")
        scale[name.strip()] = replicas
    return scale
