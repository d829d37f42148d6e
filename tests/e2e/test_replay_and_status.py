"""Replay rebuilds the projection from LOG to the same digest; status and log report what is there."""

from __future__ import annotations

import json
import time
import uuid


def test_replay_rebuilds_the_same_projection(stack) -> None:  # type: ignore[no-untyped-def]
    repo = f"rp{uuid.uuid4().hex[:6]}"
    kept = stack.cli_json("store", "cache invalidation happens in cache/evict.py", "--repo", repo)[
        "memory_id"
    ]
    gone = stack.cli_json("store", "temporary note to forget", "--repo", repo)["memory_id"]
    stack.cli("refine", kept, "--text", "cache invalidation happens in cache/evict.py on every write")
    stack.cli("forget", gone)
    stack.wait_caught_up()
    before = stack.cli_json("recall", "cache invalidation", "--repo", repo)
    result = stack.cli_json("replay")
    assert int(result["events"]) > 0
    assert result["digest_before"] == result["digest_after"]
    after = stack.cli_json("recall", "cache invalidation", "--repo", repo)
    assert [h["memory"]["id"] for h in after["hits"]] == [h["memory"]["id"] for h in before["hits"]] == [kept]
    assert after["hits"][0]["score"]["dense"] == before["hits"][0]["score"]["dense"]


def test_status_reports_health_counts_and_lag(stack) -> None:  # type: ignore[no-untyped-def]
    stack.cli("store", "status check memory")
    stack.wait_caught_up()
    status = stack.cli_json("status")
    deadline = time.monotonic() + 15
    while not status["caught_up"] and time.monotonic() < deadline:
        # the stack keeps writing on its own (what recall returned, every 2 s; its consolidation cycles),
        # so LOG may be a few events ahead at the moment of one look: caught up means it gets there
        time.sleep(0.2)
        status = stack.cli_json("status")
    assert status["caught_up"] is True
    assert int(status["memories"]) >= 1 and int(status["log_last_seq"]) == int(status["projection_seq"])
    assert set(status["consumer_pending"]) >= {"ingest", "embed", "graph", "gateway"}
    assert set(status["stream_messages"]) == {"HOOKS", "LOG", "DLQ", "REDRIVE"}
    assert status["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    consumers = {c["durable"]: c for c in status["consumers"]}
    durables = {"ingest", "embed", "graph", "reviews"}  # every service's durables, and their redrive twin
    assert set(consumers) == durables | {f"{d}-redrive" for d in durables} | {"embed-symbols"}
    assert all(
        c["exists"] and {"pending", "ack_pending", "redelivered"} <= set(c) for c in consumers.values()
    )
    assert int(status["dlq_messages"]) == int(status["stream_messages"]["DLQ"])
    projections = {p["name"]: p for p in status["projections"]}
    assert set(projections) == {"memory", "code", "given"}
    assert all(p["caught_up"] and p["following"] and not p["stalled"] for p in projections.values())
    assert int(projections["memory"]["seq"]) == int(status["log_last_seq"])
    assert status["serving"] is True and status["pid"] > 0


def test_log_prints_events_from_a_sequence(stack) -> None:  # type: ignore[no-untyped-def]
    lines = stack.cli("log", "--json", "--from", "2", "--limit", "3").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == [2, 3, 4]
    assert all({"event_id", "tenant", "occurred_at", "payload", "subject"} <= set(e) for e in events)


def test_replay_watch_reports_progress_then_the_result(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from codememory.v1 import memory_pb2 as pb

    repo = f"rw{uuid.uuid4().hex[:6]}"
    rows = [{"text": f"replayed note {i} about {repo}", "repo": repo} for i in range(3000)]
    source = tmp_path / "many.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    stack.cli("import", str(source), "--no-wait-embedded")
    stack.wait_caught_up(timeout=240)  # the 3,000 vectors first: on a loaded 2-core machine, minutes
    meta = (("authorization", f"Bearer {stack.token()}"),)
    updates = list(stack.stub().ReplayWatch(pb.ReplayRequest(), metadata=meta, timeout=300))
    assert updates[-1].phase == "done" and updates[-1].result.events >= 3000
    assert updates[-1].result.digest_before == updates[-1].result.digest_after
    folding = [u for u in updates if u.phase == "memory"]
    assert all(u.until > 0 and u.seq <= u.until for u in folding)
    assert [u.seq for u in folding] == sorted(u.seq for u in folding)
    assert len(stack.cli_json("recall", f"replayed note about {repo}", "--repo", repo)["hits"]) == 10
