"""Store, refine, deprecate and forget through the CLI; recall honours each at once."""

from __future__ import annotations

import uuid


def _ids(result: dict) -> list[str]:  # type: ignore[type-arg]
    return [h["memory"]["id"] for h in result["hits"]]


def test_store_refine_deprecate_forget(stack) -> None:  # type: ignore[no-untyped-def]
    repo = f"life{uuid.uuid4().hex[:6]}"
    mid = stack.cli_json(
        "store", "Deploys go through the blue green pipeline", "--repo", repo, "--type", "decision"
    )["memory_id"]
    assert _ids(stack.cli_json("recall", "how do deploys work", "--repo", repo)) == [mid]

    stack.cli(
        "refine", mid, "--text", "Deploys go through the canary pipeline since March", "--importance", "0.9"
    )
    hit = stack.cli_json("recall", "canary pipeline", "--repo", repo)["hits"][0]
    assert (
        hit["memory"]["id"] == mid
        and "canary" in hit["memory"]["text"]
        and hit["memory"]["importance"] == 0.9
    )

    stack.cli("deprecate", mid, "--reason", "superseded")
    assert _ids(stack.cli_json("recall", "canary pipeline", "--repo", repo)) == []
    included = stack.cli_json("recall", "canary pipeline", "--repo", repo, "--include-deprecated")["hits"]
    assert [h["memory"]["state"] for h in included] == ["deprecated"]

    stack.cli("forget", mid)
    assert _ids(stack.cli_json("recall", "canary pipeline", "--repo", repo, "--include-deprecated")) == []
    again = stack.cli("forget", mid, check=False)
    assert again.returncode != 0 and b"NOT_FOUND" in again.stderr


def test_filters_by_type_path_and_time(stack) -> None:  # type: ignore[no-untyped-def]
    repo = f"flt{uuid.uuid4().hex[:6]}"
    a = stack.cli_json(
        "store",
        "retry logic for the http client",
        "--repo",
        repo,
        "--type",
        "decision",
        "--path",
        "net/http.py",
    )["memory_id"]
    b = stack.cli_json("store", "retry logic for the queue consumer", "--repo", repo, "--type", "note")[
        "memory_id"
    ]
    assert _ids(stack.cli_json("recall", "retry logic", "--repo", repo, "--type", "decision")) == [a]
    assert _ids(stack.cli_json("recall", "retry logic", "--repo", repo, "--path", "net/http.py")) == [a]
    assert set(_ids(stack.cli_json("recall", "retry logic", "--repo", repo))) == {a, b}
    assert _ids(stack.cli_json("recall", "retry logic", "--repo", repo, "--until", "1000")) == []


def test_bad_input_is_a_clear_error(stack) -> None:  # type: ignore[no-untyped-def]
    result = stack.cli("refine", "not-a-uuid", "--text", "x", check=False)
    assert result.returncode != 0 and b"INVALID_ARGUMENT" in result.stderr
    result = stack.cli("store", "   ", check=False)
    assert result.returncode != 0 and b"INVALID_ARGUMENT" in result.stderr
