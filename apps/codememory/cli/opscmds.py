"""Operating the services: ``codememory run SERVICE`` and the DLQ (``dlq list``, ``dlq redrive``).

``run`` starts one service as this process (what ``up --scale`` and containers run); the DLQ commands
talk to JetStream directly at the address ``codememory up`` recorded (or ``CODEMEMORY_NATS_URL``).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import nats
import typer

from codememory.bus import dead_letters, redrive
from codememory.bus.deadletters import DeadLetter
from codememory.cli.render import print_json
from codememory.runtime.buscreds import operator_options
from codememory.runtime.home import NotRunningError, read_runtime
from codememory.settings import default_home
from codememory.topology import SERVICES, UnknownServiceError, service

if TYPE_CHECKING:
    from codememory.metrics.headline import Headline, Series

dlq_app = typer.Typer(no_args_is_help=True, help="Dead-lettered messages: list them, put them back.")


def run_cmd(name: Annotated[str, typer.Argument(help=", ".join(s.name for s in SERVICES))]) -> None:
    """Run one service in this process against CODEMEMORY_NATS_URL, settings from the environment."""
    try:
        module = service(name).module
    except UnknownServiceError as exc:
        typer.echo(f"codememory: {exc}", err=True)
        raise typer.Exit(2) from exc
    importlib.import_module(module).main()


def _nats_url() -> str:
    configured = os.environ.get("CODEMEMORY_NATS_URL")
    if configured:
        return configured
    try:
        return read_runtime(default_home()).nats_url
    except NotRunningError as exc:
        typer.echo(f"codememory: {exc}", err=True)
        raise typer.Exit(1) from exc


def _redrivable(letter: DeadLetter) -> bool:
    """Only a service with durable consumers reads its redrive subject (the gateway has none)."""
    try:
        return bool(service(letter.service).consumers)
    except UnknownServiceError:
        return False


def _row(letter: DeadLetter) -> dict[str, object]:
    return {
        "seq": letter.seq,
        "service": letter.service,
        "reason": letter.reason,
        "stream": letter.stream,
        "source_seq": letter.source_seq,
        "subject": letter.subject,
        "bytes": len(letter.data),
        "parked_at": letter.parked_at.isoformat() if letter.parked_at else "",
    }


async def _letters(service_name: str, seq: int) -> list[DeadLetter]:
    nc = await nats.connect(_nats_url(), name="codememory-dlq", **operator_options(default_home()))
    try:
        return [
            d async for d in dead_letters(nc.jetstream(), service=service_name) if not seq or d.seq == seq
        ]
    finally:
        await nc.close()


@dlq_app.command("list")
def dlq_list(
    service_name: Annotated[str, typer.Option("--service", help="Only this service's")] = "",
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Dead-lettered messages, oldest first, with the reason each was parked."""
    rows = [_row(d) for d in asyncio.run(_letters(service_name, 0))]
    if json_out:
        print_json(rows)
        return
    for row in rows:
        typer.echo(f"{row['seq']:>6}  {row['service']:<8} {row['subject']}  {row['reason']}")
    typer.echo(f"{len(rows)} dead-lettered")


@dlq_app.command("redrive")
def dlq_redrive(
    service_name: Annotated[str, typer.Option("--service", help="Only this service's")] = "",
    seq: Annotated[int, typer.Option("--seq", help="Only this DLQ sequence")] = 0,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Put dead letters back through their service's normal path (once their cause is fixed)."""

    async def go() -> list[int]:
        nc = await nats.connect(_nats_url(), name="codememory-dlq", **operator_options(default_home()))
        try:
            js = nc.jetstream()
            letters = [d async for d in dead_letters(js, service=service_name) if not seq or d.seq == seq]
            sent = []
            for letter in letters:
                if not _redrivable(letter):
                    typer.echo(
                        f"codememory: dead letter {letter.seq} of {letter.service} is a record of a poison "
                        "event, not redrivable (LOG is immutable)",
                        err=True,
                    )
                    continue
                await redrive(js, letter)
                sent.append(letter.seq)
            return sent
        finally:
            await nc.close()

    sent = asyncio.run(go())
    if json_out:
        print_json({"redriven": sent})
    else:
        typer.echo(f"redriven {len(sent)}")
    if seq and not sent:
        typer.echo(f"codememory: no dead letter with sequence {seq}", err=True)
        raise typer.Exit(1)


def _scrape_all(urls: list[str]) -> tuple[Series, int]:
    from codememory.metrics.headline import ScrapeError, parse, scrape

    texts = []
    for url in urls:
        try:
            texts.append(scrape(url))
        except ScrapeError:
            continue  # a replica restarting: the others still count
    return parse(texts), len(texts)


def metrics_headline(home: Path, interval_s: float = 1.0) -> Headline | None:
    """The stack's headline figures from two scrapes of every metrics endpoint ``interval_s`` apart;
    None when ``up`` recorded no endpoint or none answered."""
    from codememory.metrics.headline import headline
    from codememory.runtime.observe import read_observers

    _, urls = read_observers(home)
    if not urls:
        return None
    before, answered = _scrape_all(urls)
    if not answered:
        return None
    started = time.monotonic()
    time.sleep(interval_s)
    after, answered = _scrape_all(urls)
    return headline(before, after, time.monotonic() - started) if answered else None


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)
    app.add_typer(dlq_app, name="dlq")


__all__ = ["register"]
