"""Export and import move memories as JSON lines through the event path, keeping id, time, scope and
the state consolidation left them in."""

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


def test_a_store_moves_to_another_tenant_with_its_superseded_and_merged_memories(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Corrections made by hand in one tenant, exported, imported by another: the same states and links,
    and recall there puts the amended rule first and the merged restatements nowhere."""
    repo = f"mv{uuid.uuid4().hex[:6]}"

    def store(text: str) -> str:
        return str(stack.cli_json("store", text, "--repo", repo, "--type", "decision")["memory_id"])

    old = store(f"release builds of {repo} are signed with the 2023 key")
    new = store(f"release builds of {repo} are now signed with the 2025 hardware key")
    canonical = store(f"every migration in {repo} needs a down step")
    restated = [
        store(f"again: migrations in {repo} must have a down step"),
        store(f"{repo}: no migration without a down step"),
    ]
    gone = store(f"the {repo} staging database is on port 5433")
    stack.cli("supersede", old, new)
    stack.cli("merge", canonical, *restated)
    stack.cli("deprecate", gone)

    exported = stack.cli("export", "--repo", repo).stdout
    lines = {row["id"]: row for row in map(json.loads, exported.splitlines())}
    assert (
        lines[old]["state"] == "superseded"
        and lines[old]["superseded_by"] == new
        and lines[old]["superseded_at"]
    )
    assert {lines[r]["merged_into"] for r in restated} == {canonical} and lines[gone]["state"] == "deprecated"
    source = tmp_path / "moved.jsonl"
    source.write_bytes(exported)

    alpha = {"CODEMEMORY_TOKEN": "tok-alpha"}
    summary = json.loads(stack.cli("import", str(source), env=alpha).stdout)
    assert (summary["imported"], summary["stored"], summary["states"]) == (6, 6, 4)
    moved = {
        row["id"]: row
        for row in map(json.loads, stack.cli("export", "--repo", repo, env=alpha).stdout.splitlines())
    }
    keep = ("state", "superseded_by", "superseded_at", "merged_into", "text", "time", "type", "importance")
    assert {i: {k: r.get(k) for k in keep} for i, r in moved.items()} == {
        i: {k: r.get(k) for k in keep} for i, r in lines.items()
    }
    assert {r["tenant"] for r in moved.values()} == {"alpha"}

    hits = json.loads(
        stack.cli(
            "recall", f"how are {repo} release builds signed", "--repo", repo, "--json", env=alpha
        ).stdout
    )["hits"]
    order = [h["memory"]["id"] for h in hits]
    assert order[0] == new and (old not in order or order.index(old) > order.index(new))
    hits = json.loads(
        stack.cli("recall", f"down step for migrations in {repo}", "--repo", repo, "--json", env=alpha).stdout
    )["hits"]
    found = [h["memory"]["id"] for h in hits]
    assert found[0] == canonical and not set(restated) & set(found)
    assert hits[0]["memory"]["restated"] == 3

    again = json.loads(stack.cli("import", str(source), env=alpha).stdout)
    assert (again["stored"], again["existing"]) == (0, 6)
