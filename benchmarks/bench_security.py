"""What bus security costs the hook, and which bus attacks it stops (measured, not assumed).

Three nats-servers in one run, from the same code ``codememory up`` uses: plain (no login, the state
before issue 12), with the authorization block made from the topology (users and passwords), and
with that block over TLS (a local CA from ``runtime.certs``). For each, the hook's whole process
(``codememory hook`` dispatch, spawn to exit after the JetStream ack, a real Claude Code payload) and
the hook client's connect + publish + ack alone (in process, many more samples) are timed, rounds
interleaved so machine load falls evenly on the three. Medians, p95 and ratios against plain.

Then every bus attack of the security table is tried against the authorised server with real
clients; each row says what happened (``denied`` is a permissions violation or a refused login; the
same user's allowed action beside it proves the denial is the permission, not a broken client).
The memory-id rows run against a real gRPC gateway (``idprobe.py``): tenant beta claims and probes ids
tenant alpha holds. Last, every redaction rule's adversarial lines are timed at n and 2n characters.

Usage: .venv/bin/python benchmarks/bench_security.py [--runs 40] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import nats
from idprobe import id_attacks
from results import median, percentile, write_section

from codememory import subjects
from codememory.bus import probe
from codememory.bus.permissions import authorization_block, bus_users, user_names
from codememory.bus.streams import ensure_streams
from codememory.hookclient.wire import NatsConnection
from codememory.redaction.adversarial import scaling
from codememory.runtime.certs import local_tls
from codememory.runtime.natsd import NatsServer
from codememory.topology import SERVICES
from shared_data import HOOKS_DATA

HOOK_FAST = "import sys; from codememory.hookclient.main import main_and_exit; main_and_exit(sys.argv[1:])"
TENANTS = ("alpha", "beta")


def _hook_body(tenant: str) -> bytes:
    return json.dumps(
        {
            "v": 1,
            "agent": "claude",
            "event": "UserPromptSubmit",
            "tenant": tenant,
            "received_at": "2026-01-01T00:00:00+00:00",
            "dedupe_key": str(uuid.uuid4()),
            "payload": {"session_id": "s", "cwd": "/w", "prompt": "x"},
        }
    ).encode()


async def _prepare(url: str, admin: dict[str, Any]) -> None:
    nc = await nats.connect(url, **admin)
    await ensure_streams(nc.jetstream())
    await nc.close()


def _home(root: Path, name: str, url: str, user: str, password: str, ca: str) -> dict[str, str]:
    home = root / name
    (home / "secrets").mkdir(parents=True)
    (home / "runtime.json").write_text(
        json.dumps({"nats_url": url, "grpc_address": "", "pid": 0, "nats_ca": ca})
    )
    if user:
        (home / "secrets" / "hook.json").write_text(
            json.dumps({"user": user, "password": password, "tenant": "alpha"})
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEMEMORY_")}
    return {**env, "CODEMEMORY_HOME": str(home), "CODEMEMORY_CONTEXT_TIMEOUT_MS": "0"}


def _hook_process(env: dict[str, str], stdin: bytes) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_FAST, "--agent", "claude"], input=stdin, env=env, capture_output=True
    )
    took = (time.perf_counter() - start) * 1000
    spool = Path(env["CODEMEMORY_HOME"]) / "spool" / "hooks.jsonl"
    if proc.returncode != 0 or spool.exists():
        raise SystemExit(f"hook failed or spooled: rc={proc.returncode} {proc.stderr[-300:]!r}")
    return took


def _client(url: str, user: str, password: str, ca: str) -> float:
    start = time.perf_counter()
    with NatsConnection.connect(url, 2.0, user=user, password=password, ca=ca) as conn:
        conn.publish(
            "cm.hooks.alpha.claude.UserPromptSubmit",
            _hook_body("alpha"),
            {"Nats-Msg-Id": str(uuid.uuid4())},
            2.0,
        )
    return (time.perf_counter() - start) * 1000


def attacks(url: str, pw: dict[str, str]) -> list[tuple[str, str, str]]:
    def as_(user: str) -> tuple[str, str]:
        return user, pw[user]

    rows: list[tuple[str, str, probe.Action | None, tuple[str, str]]] = [
        ("anonymous client connects", "-", None, ("", "")),
        ("admin with a guessed password connects", "admin", None, ("admin", "guess")),
        (
            "hook-alpha publishes into tenant beta's hooks",
            "hook-alpha",
            probe.js_publish("cm.hooks.beta.claude.Stop", _hook_body("beta")),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha asks tenant beta's context",
            "hook-alpha",
            probe.request("cm.rpc.beta.context"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha subscribes to LOG subjects",
            "hook-alpha",
            probe.subscribe("cm.log.>"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha reads LOG through JetStream",
            "hook-alpha",
            probe.read_stream("LOG", "cm.log.>"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha overhears hooks (cm.hooks.>)",
            "hook-alpha",
            probe.subscribe("cm.hooks.>"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha reads beta's context replies",
            "hook-alpha",
            probe.subscribe("_INBOX_hook-beta.>"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha answers context requests (impersonates the gateway)",
            "hook-alpha",
            probe.subscribe("cm.rpc.*.context"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha appends to LOG directly",
            "hook-alpha",
            probe.js_publish("cm.log.alpha.memory.stored"),
            as_("hook-alpha"),
        ),
        (
            "hook-alpha runs a consolidation",
            "hook-alpha",
            probe.request("cm.rpc.alpha.consolidate"),
            as_("hook-alpha"),
        ),
    ]
    for svc in SERVICES:
        rows.append(
            (f"{svc.name} deletes LOG", svc.name, probe.request("$JS.API.STREAM.DELETE.LOG"), as_(svc.name))
        )
        rows.append(
            (
                f"{svc.name} publishes a hook",
                svc.name,
                probe.js_publish("cm.hooks.alpha.claude.Stop"),
                as_(svc.name),
            )
        )
        if svc.name != "ingest":
            rows.append(
                (f"{svc.name} reads HOOKS", svc.name, probe.read_stream("HOOKS", "cm.hooks.>"), as_(svc.name))
            )
        reader = SERVICES[(SERVICES.index(svc) + 1) % len(SERVICES)]  # another service: its replies
        rows.append(
            (
                f"{svc.name} reads {reader.name}'s request replies",
                svc.name,
                probe.subscribe(f"{subjects.inbox(reader.name)}.>"),
                as_(svc.name),
            )
        )
        rows.append(
            (
                f"{svc.name} reads the once-shared _INBOX.>",
                svc.name,
                probe.subscribe("_INBOX.>"),
                as_(svc.name),
            )
        )
        if svc.name != "gateway":
            rows.append(
                (
                    f"{svc.name} answers context requests",
                    svc.name,
                    probe.subscribe("cm.rpc.*.context"),
                    as_(svc.name),
                )
            )
    rows.append(
        (
            "(control) hook-alpha publishes its own hook",
            "hook-alpha",
            probe.js_publish("cm.hooks.alpha.claude.Stop", _hook_body("alpha")),
            as_("hook-alpha"),
        )
    )
    rows.append(
        (
            "(control) embed reads its own replies",
            "embed",
            probe.subscribe(f"{subjects.inbox('embed')}.>"),
            as_("embed"),
        )
    )
    rows.append(
        (
            "(control) gateway answers context requests",
            "gateway",
            probe.subscribe("cm.rpc.*.context"),
            as_("gateway"),
        )
    )
    out = []
    for what, who, action, (user, password) in rows:
        tried = probe.subscribe("cm.x") if action is None else action
        out.append((what, who, probe.attempt(url, user, password, tried, deadline=1.0, settle=0.1).outcome()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--client-runs", type=int, default=300)
    parser.add_argument("--redaction-n", type=int, default=16384)  # the hook's largest field
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    stdin = (HOOKS_DATA / "claude_UserPromptSubmit.json").read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pw = {name: uuid.uuid4().hex for name in user_names(TENANTS)}
        block = authorization_block(bus_users(pw, TENANTS))
        tls = local_tls(root / "tls")
        admin = {"user": "admin", "password": pw["admin"]}
        servers = {
            "plain (no login)": NatsServer(root / "plain"),
            "users + passwords": NatsServer(root / "auth", authorization=block),
            "users + passwords + TLS": NatsServer(root / "tls-server", authorization=block, tls=tls),
        }
        try:
            for server in servers.values():
                server.start()
            import ssl

            asyncio.run(_prepare(servers["plain (no login)"].url, {}))
            asyncio.run(_prepare(servers["users + passwords"].url, admin))
            asyncio.run(
                _prepare(
                    servers["users + passwords + TLS"].url,
                    {**admin, "tls": ssl.create_default_context(cafile=tls.ca)},
                )
            )
            setups = {
                "plain (no login)": (servers["plain (no login)"].url, "", "", ""),
                "users + passwords": (servers["users + passwords"].url, "hook-alpha", pw["hook-alpha"], ""),
                "users + passwords + TLS": (
                    servers["users + passwords + TLS"].url,
                    "hook-alpha",
                    pw["hook-alpha"],
                    tls.ca,
                ),
            }
            envs = {
                name: _home(root / "homes", str(i), *setup) for i, (name, setup) in enumerate(setups.items())
            }
            hook: dict[str, list[float]] = {name: [] for name in setups}
            client: dict[str, list[float]] = {name: [] for name in setups}
            for name in setups:  # warm caches
                _hook_process(envs[name], stdin)
                _client(*setups[name])
            for _ in range(args.runs):
                for name in setups:
                    hook[name].append(_hook_process(envs[name], stdin))
            for _ in range(args.client_runs):
                for name in setups:
                    client[name].append(_client(*setups[name]))
            table = attacks(servers["users + passwords"].url, pw)
            table += id_attacks(root / "gateway")
        finally:
            for server in servers.values():
                server.stop()
    base_hook, base_client = median(hook["plain (no login)"]), median(client["plain (no login)"])
    lines = [
        "| server | hook process median (p95), ms | ratio | in-process publish (p95), ms | ratio |",
        "|---|---|---|---|---|",
    ]
    for name in setups:
        h, c = hook[name], client[name]
        lines.append(
            f"| {name} | {median(h):.1f} ({percentile(h, 95):.1f}) | {median(h) / base_hook:.2f}x "
            f"| {median(c):.2f} ({percentile(c, 95):.2f}) | {median(c) / base_client:.2f}x |"
        )
    lines += [
        "",
        "Bus attacks against the authorised server, and memory-id attacks against a real gRPC gateway "
        "(each row tried with a real client in this run):",
        "",
    ]
    lines += ["| attack | as | outcome |", "|---|---|---|"]
    lines += [f"| {what} | {who} | {outcome} |" for what, who, outcome in table]
    denied = sum(1 for what, _, o in table if not what.startswith("(") and o.startswith("denied"))
    attempted = sum(1 for what, _, _ in table if not what.startswith("("))
    controls = [o for what, _, o in table if what.startswith("(control)")]
    lines += ["", f"{denied} of {attempted} attacks denied; controls: {', '.join(controls)}."]
    started = time.perf_counter()
    scaled = scaling(args.redaction_n, 2)
    took = time.perf_counter() - started
    slowest = max(scaled, key=lambda r: r.seconds_2n)
    steepest = max(scaled, key=lambda r: r.ratio if r.seconds_2n > 0.005 else 0.0)
    superlinear = [r for r in scaled if r.seconds_2n > 0.005 and r.ratio > 3]
    lines += [
        "",
        f"Redaction of adversarial single lines (`redaction/adversarial.py`): {len(scaled)} lines built from "
        f"every rule's triggers, each at {args.redaction_n:,} and {2 * args.redaction_n:,} characters "
        f"({took:.0f} s). Slowest: {slowest.kind}, {slowest.shape}: {slowest.seconds_n * 1000:.1f} ms -> "
        f"{slowest.seconds_2n * 1000:.1f} ms ({slowest.ratio:.2f}x for 2x the input). Steepest above 5 ms: "
        f"{steepest.kind}, {steepest.shape}: {steepest.ratio:.2f}x. Lines growing faster than 3x: "
        f"{len(superlinear)}.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        note = (
            f"{args.runs} hook processes and {args.client_runs} in-process publishes per server, rounds "
            "interleaved. The hook speaks TLS with the stdlib `ssl` module (EC P-256 certificate from the "
            "local CA); the TLS row includes the handshake every hook process pays."
        )
        write_section(
            "bench_security",
            "Bus security: cost to the hook and attacks tried (`bench_security.py`)",
            note + "\n\n" + body,
        )


if __name__ == "__main__":
    main()
