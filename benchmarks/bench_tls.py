"""What TLS costs the running stack: hook ingest rate, replay rate and recall p50, plain against TLS.

Issue 12 asks for the cost of TLS on hook latency, ingest rate, replay rate and recall p50, each
against the plain setting in the same run. Hook latency is ``bench_security.py``'s table (a hook
process per event, with its handshake); this script measures the other three on the embedded stack
as a user runs it: ``codememory up`` (plain) and ``codememory up --tls`` (NATS over TLS only, gRPC
over TLS, certificates from the local CA in the home), in fresh temporary homes, rounds interleaved
(plain, TLS, plain, TLS ...) so the machine's drift falls on both.

Per round and setting:

- **ingest**: ``--events`` prompts published onto HOOKS with the home's own hook credential (the
  hook's stdlib NATS client, one connection, TLS when the server demands it, each publish waiting
  for its JetStream ack), then the time until ingest has appended every one to LOG, and until every
  projection is level with LOG and the embed service has nothing pending (each prompt embedded by
  the real model and recallable);
- **replay**: ``codememory replay`` (the Replay RPC) rebuilding the projections from that LOG, its
  events over its wall time;
- **recall**: ``--queries`` Recall calls over gRPC (the CLI's channel, TLS when the home has a CA),
  after 10 warm-up calls; the median and p95.

    .venv/bin/python benchmarks/bench_tls.py [--events 1000] [--queries 200] [--rounds 2] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import embedded_stack
from results import median, percentile, write_section

from codememory.hookclient.wire import NatsConnection

TOPICS = ("the payment queue", "the search index", "the login page", "the nightly backup", "the CDN")
ACTIONS = ("retries three times", "is rebuilt hourly", "needs a feature flag", "runs on arm64", "is cached")


def _status(home: Path, done: object, timeout: float = 900) -> object:
    """Status until ``done(status)`` holds."""
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    deadline = time.monotonic() + timeout
    with connect(home) as conn:
        while True:
            try:
                status = conn.stub.Status(pb.StatusRequest(), metadata=conn.metadata, timeout=10)
                if done(status):  # type: ignore[operator]
                    return status
            except Exception as exc:  # the gateway starting up: UNAVAILABLE for a moment
                if time.monotonic() > deadline:
                    raise SystemExit(f"no status: {exc}") from exc
            if time.monotonic() > deadline:
                raise SystemExit(f"not done after {timeout:.0f} s")
            time.sleep(0.05)


def _settled(status: object) -> bool:
    s = status
    return bool(
        s.caught_up and not any(s.consumer_pending.values()) and s.stream_messages["HOOKS"] == 0  # type: ignore[attr-defined]
    )


def ingest(home: Path, events: int, tls: bool) -> tuple[float, float]:
    """(events/s until all are in LOG, events/s until all are projected and embedded)."""
    runtime = json.loads((home / "runtime.json").read_text())
    hook = json.loads((home / "secrets" / "hook.json").read_text())
    ca = runtime.get("nats_ca", "") or ""
    if tls and not ca:
        raise SystemExit("up --tls wrote no CA into runtime.json")
    before = _status(home, _settled)
    log_before = before.stream_messages["LOG"]  # type: ignore[attr-defined]
    tenant = hook["tenant"]
    started = time.perf_counter()
    with NatsConnection.connect(
        runtime["nats_url"], 5.0, user=hook["user"], password=hook["password"], ca=ca
    ) as nc:
        for n in range(events):
            body = {
                "v": 1,
                "agent": "claude",
                "event": "UserPromptSubmit",
                "tenant": tenant,
                "received_at": "2026-11-24T00:00:00+00:00",
                "dedupe_key": str(uuid.uuid4()),
                "payload": {
                    "session_id": f"tls-{n // 50}",
                    "cwd": "/work/shop",
                    "prompt": f"{TOPICS[n % 5]} {ACTIONS[(n // 5) % 5]}, ticket {n}",
                },
            }
            nc.publish(
                f"cm.hooks.{tenant}.claude.UserPromptSubmit",
                json.dumps(body).encode(),
                {"Nats-Msg-Id": body["dedupe_key"]},
                5.0,
            )
    _status(home, lambda s: s.stream_messages["LOG"] >= log_before + events)  # type: ignore[attr-defined]
    in_log = time.perf_counter() - started
    _status(home, _settled)
    projected = time.perf_counter() - started
    return events / in_log, events / projected


def replay(home: Path) -> float:
    """Events/s of ``codememory replay`` (the Replay RPC: LOG read over the bus, the projections
    rebuilt) by the server's own timing; the rebuilt digest must equal the live one."""
    out = subprocess.run(
        [str(Path(sys.executable).parent / "codememory"), "replay", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    if result["digest_before"] != result["digest_after"]:
        raise SystemExit(f"replay changed the digest: {out.stdout[:500]}")
    return int(result["events"]) / float(result["seconds"])


def recall(home: Path, queries: int) -> tuple[float, float]:
    """Median and p95 ms of Recall over gRPC."""
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    took: list[float] = []
    with connect(home) as conn:
        for n in range(queries + 10):
            request = pb.RecallRequest(query=f"what about {TOPICS[n % 5]}?", limit=10)
            start = time.perf_counter()
            conn.stub.Recall(request, metadata=conn.metadata, timeout=30)
            if n >= 10:
                took.append((time.perf_counter() - start) * 1000)
    return median(took), percentile(took, 95)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in ("plain", "TLS")}
    for round_ in range(args.rounds):
        for name in ("plain", "TLS"):
            with embedded_stack(*(["--tls"] if name == "TLS" else [])) as home:
                in_log, projected = ingest(home, args.events, name == "TLS")
                p50, p95 = recall(home, args.queries)
                replayed = replay(home)
            got = {"in_log": in_log, "projected": projected, "replay": replayed, "p50": p50, "p95": p95}
            for key, value in got.items():
                rows[name].setdefault(key, []).append(value)
            print(
                f"round {round_ + 1} {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in got.items()), flush=True
            )
    med = {name: {k: median(v) for k, v in row.items()} for name, row in rows.items()}
    plain, tls = med["plain"], med["TLS"]
    measures = (
        ("hook events into LOG (ingest), events/s", "in_log", True),
        ("hook events embedded and projected, events/s", "projected", True),
        ("`codememory replay`, events/s", "replay", True),
        ("Recall over gRPC p50, ms", "p50", False),
        ("Recall over gRPC p95, ms", "p95", False),
    )
    lines = [
        f"{args.events} prompts published with the home's hook credential (one connection, each publish "
        f"acked), then `codememory replay`, then {args.queries} Recall calls over gRPC; medians of "
        f"{args.rounds} rounds per setting, interleaved, each on a fresh `codememory up` (TLS: `up --tls`, "
        "NATS and gRPC over TLS with the local CA). Ratio: TLS over plain (for rates, below 1.00x is slower; "
        "for latencies, above 1.00x is slower). Hook process latency with and without TLS: `bench_security`.",
        "",
        "| measure | plain | TLS | TLS / plain |",
        "|---|---|---|---|",
    ]
    for label, key, _ in measures:
        lines.append(f"| {label} | {plain[key]:,.1f} | {tls[key]:,.1f} | {tls[key] / plain[key]:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(
            "bench_tls", "TLS on the running stack: ingest, replay and recall (`bench_tls.py`)", text
        )


if __name__ == "__main__":
    main()
