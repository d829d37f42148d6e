"""LoCoMo retrieval quality: the data and the metric, for ``quality.py`` (the systems: ``locomo_systems``).

The conversations in ../shared/data/locomo/locomo_dev.json go in through codememory's public path:
the gateway's Store RPC (what ``codememory import`` calls), one codememory session per LoCoMo
session, each turn with its session date as its time and its speaker, dialog id and session date as
metadata, the speaker also as the memory's user (who it came from), each conversation as its own
repo scope. Questions go through the Recall RPC scoped to their conversation. Baselines on the same
turns: BM25 alone and dense alone (MiniLM, "embed every turn, take the top k"), both on a Qdrant Edge
shard in this process. Ablations fold the same events through the same projection and Recaller
in-process, one mechanism switched off at a time.
Conversation 4 is reported apart: it is held out of any tuning.

Only the standard library at import time: mem0's worker (another venv) imports this module too.

    .venv/bin/python benchmarks/quality.py      # the entry point
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared_data import SHARED_DATA

DATA = Path(os.environ.get("LOCOMO_DATA", SHARED_DATA / "locomo" / "locomo_dev.json"))
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10, 25)
HELD_OUT = 4
SPLITS = ("conv 0-3", "held-out conv 4")

Search = Callable[[str, str], list[str]]  # (repo, question) -> dialog ids, best first
Scores = dict[str, dict[int, list[float]]]  # split -> category * 100 + k -> per-question recall


def load() -> list[dict[str, Any]]:
    return list(json.loads(DATA.read_text()))


def dialog_turns() -> list[tuple[str, str, str]]:
    """Every dialog turn of ``DATA`` as (sample id, session key, its text), in file order (the raw text,
    without the speaker: what the embedder benchmarks feed the model)."""
    return [
        (sample["sample_id"], key, turn["text"])
        for sample in load()
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
        if turn.get("text")
    ]


def _when(text: str) -> str:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).isoformat()


def turns(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """Every dialog turn as an importable memory (the JSON-lines shape of ``codememory export``)."""
    sample = conversation["sample_id"]
    conv = conversation["conversation"]
    rows = []
    for key in sorted(
        (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
        key=lambda k: int(k.split("_")[1]),
    ):
        date = conv.get(f"{key}_date_time")
        if not date:
            continue
        for turn in conv[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo of {turn['blip_caption']}]"
            rows.append(
                {
                    "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{sample}/{turn['dia_id']}")),
                    "text": text,
                    "type": "dialog",
                    "repo": f"locomo-{sample}",
                    "session": f"{sample}-{key}",
                    "user": turn["speaker"],
                    "time": _when(date),
                    "metadata": {"dia_id": turn["dia_id"], "speaker": turn["speaker"], "session_date": date},
                }
            )
    return rows


def interleaved(convs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """All turns, conversations taking turns (each in its own order), as parallel imports would land."""
    queues = [turns(c) for c in convs]
    out = []
    for i in range(max(len(q) for q in queues)):
        out.extend(q[i] for q in queues if i < len(q))
    return out


def questions(conversation: dict[str, Any]) -> list[tuple[str, int, set[str]]]:
    out = []
    for qa in conversation["qa"]:
        evidence = {
            e.strip()
            for item in qa.get("evidence", [])
            for e in str(item).replace(",", ";").split(";")
            if e.strip()
        }
        if evidence and qa.get("question"):
            out.append((qa["question"], int(qa["category"]), evidence))
    return out


def split_of(index: int) -> str:
    return SPLITS[1] if index == HELD_OUT else SPLITS[0]


def evaluate(convs: list[dict[str, Any]], search: Search) -> tuple[Scores, list[float]]:
    """Per split and category, per-question recall at each k; and the latency of every search."""
    scores: Scores = defaultdict(lambda: defaultdict(list))
    latencies = []
    for index, conv in enumerate(convs):
        for question, category, evidence in questions(conv):
            started = time.perf_counter()
            ranked = search(f"locomo-{conv['sample_id']}", question)
            latencies.append((time.perf_counter() - started) * 1000)
            score_ranked(scores, split_of(index), category, evidence, ranked)
    return scores, latencies


def score_ranked(scores: Scores, split: str, category: int, evidence: set[str], ranked: list[str]) -> None:
    for k in KS:
        found = len(evidence & set(ranked[:k])) / len(evidence)
        scores[split][category * 100 + k].append(found)
        scores["all"][category * 100 + k].append(found)


def cell(scores: Scores, split: str, category: int, k: int) -> str:
    """Mean recall in percent; category 0 is every category."""
    values = (
        [v for c in CATEGORIES for v in scores[split][c * 100 + k]]
        if category == 0
        else scores[split][category * 100 + k]
    )
    return f"{100 * statistics.mean(values):.1f}" if values else "-"
