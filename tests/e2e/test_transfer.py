"""Export and import move memories as JSON lines through the event path, keeping id, time and scope."""

from __future__ import annotations

import json
import uuid

# Three memories that differ in what they say, not only in a digit: recall must tell them apart by meaning.
TOPICS = (
    "the build uses hatchling",
    "deploys go through kustomize overlays",
    "the cache is warmed at startup",
)


def test_export_then_import_round_trip(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = f"tx{uuid.uuid4().hex[:6]}"
    rows = [
        {
            "id": str(uuid.uuid4()),
            "text": f"{TOPICS[i]} in {repo}",
            "type": "fact",
            "repo": repo,
            "session": "sess-1",
            "time": f"2023-05-0{i + 1}T10:00:00+00:00",
            "tags": ["imported"],
            "metadata": {"dialog": f"D1:{i}"},
            "importance": 0.7,
        }
        for i in range(3)
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    first = json.loads(stack.cli("import", str(source)).stdout)
    assert (first["imported"], first["stored"], first["embedded"]) == (3, 3, True)
    again = json.loads(stack.cli("import", str(source)).stdout)
    assert (again["imported"], again["stored"], again["existing"]) == (3, 0, 3)  # again: stored once

    exported = [json.loads(line) for line in stack.cli("export", "--repo", repo).stdout.splitlines()]
    assert [e["id"] for e in exported] == [r["id"] for r in rows]
    first = exported[0]
    assert first["text"] == rows[0]["text"] and first["session"] == "sess-1" and first["tenant"] == "local"
    assert first["time"].startswith("2023-05-01T10:00:00") and first["metadata"] == {"dialog": "D1:0"}
    assert first["tags"] == ["imported"] and first["importance"] == 0.7

    hits = stack.cli_json("recall", "when is the cache warmed", "--repo", repo, "--session", "sess-1")["hits"]
    assert hits[0]["memory"]["metadata"]["dialog"] == "D1:2"


def test_import_rejects_bad_lines_clearly(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\nnot json\n')
    result = stack.cli("import", str(bad), check=False)
    assert result.returncode != 0 and b"line 2" in result.stderr
