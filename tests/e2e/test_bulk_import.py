"""``codememory import`` of thousands of memories: batches over the Import stream, one wait, every
field kept, stored once however often it is imported, every memory recallable by meaning at the end."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

SUBJECTS = ("the payment queue", "the search index", "the login page", "the nightly backup", "the CDN")
ACTIONS = (
    "retries three times",
    "is rebuilt hourly",
    "needs a feature flag",
    "runs on arm64",
    "is cached",
)


def _rows(repo: str, n: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for i in range(n):
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "text": f"note {i}: {SUBJECTS[i % 5]} {ACTIONS[(i // 5) % 5]} (ticket T-{i})",
                "type": ("fact", "decision", "note")[i % 3],
                "tenant": "someone-else",  # an import always lands in the caller's tenant
                "repo": repo,
                "branch": f"b{i % 4}",
                "user": f"user{i % 7}",
                "session": f"sess-{i // 100}",
                "agent": ("claude", "codex", "")[i % 3],
                "paths": [f"src/mod{i % 11}.py"] if i % 2 else [],
                "time": f"2024-0{1 + i % 9}-1{i % 10}T0{i % 10}:30:00+00:00",
                "tags": ["imported", f"t{i % 5}"],
                "importance": round(0.1 + (i % 9) / 10, 2),
                "metadata": {"source": "bulk", "n": str(i)},
                "state": "deprecated" if i % 50 == 0 else "active",
            }
        )
    return rows


def test_bulk_import_is_recallable_once_and_round_trips(stack, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = f"bulk{uuid.uuid4().hex[:6]}"
    rows = _rows(repo, 2000)
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")

    first = json.loads(stack.cli("import", str(source)).stdout)
    assert (first["imported"], first["stored"], first["existing"], first["embedded"]) == (2000, 2000, 0, True)
    again = json.loads(stack.cli("import", str(source)).stdout)
    assert (again["stored"], again["existing"]) == (0, 2000)  # stored once

    # every memory has its dense vector when import returns (a memory without one scores dense 0)
    query = ("recall", "backup of the data overnight", "--repo", repo, "--limit", "50")
    hits = stack.cli_json(*query)["hits"]
    assert len(hits) == 50 and all(h["score"]["dense"] > 0 for h in hits)
    assert any("nightly backup" in h["memory"]["text"] for h in hits)

    exported = {
        line["id"]: line for line in map(json.loads, stack.cli("export", "--repo", repo).stdout.splitlines())
    }
    assert len(exported) == 2000
    for row in rows:
        got = exported[str(row["id"])]
        expected = {**row, "tenant": "local"}
        assert got == expected, (got, expected)


def test_import_reports_the_bad_line_before_sending_anything(stack, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = f"bad{uuid.uuid4().hex[:6]}"
    rows = _rows(repo, 3)
    lines = [json.dumps(r) for r in rows] + ['{"text": "fine", "state": "superseded"}']  # by nothing
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n")
    result = stack.cli("import", str(source), check=False)
    assert result.returncode != 0 and b"line 4" in result.stderr
    assert stack.cli("export", "--repo", repo).stdout == b""  # nothing was sent
