"""Text hygiene helpers and the catch-all observation."""

from __future__ import annotations

from codememory.ingest.normalize.common import Context, clean, first_text, line, observation, sanitize

CTX = Context(hook_event="Odd", session_id="s", agent="claude", trimmed=("tool_response.content",))


def test_clean_and_line():
    assert clean(None) == ""
    assert clean({"a": [1, 2]}) == '{"a":[1,2]}'
    assert clean("  keep\n  lines  ") == "keep\n  lines"
    assert line("one\n  two\tthree") == "one two three"
    assert len(line("x" * 1000)) == 300


def test_first_text_skips_blanks_and_non_strings():
    assert first_text({"a": " ", "b": 3, "c": "yes"}, "a", "b", "c") == "yes"
    assert first_text("not a dict", "a") == ""


def test_sanitize_keeps_scalars_and_bounds_containers():
    value = sanitize(
        {
            "n": 1,
            "f": 1.5,
            "b": True,
            "none": None,
            "list": list(range(30)),
            "keys": {str(i): i for i in range(50)},
        }
    )
    assert (value["n"], value["f"], value["b"], value["none"]) == (1, 1.5, True, None)
    assert value["list"][-1] == "… 10 more items"
    assert value["keys"]["…"] == "10 more keys"


def test_observation_drops_lifted_keys_and_notes_trimming():
    payload = {
        "session_id": "s",
        "cwd": "/x",
        "hook_event_name": "Odd",
        "user_email": "a@b.c",
        "status": "ok",
    }
    event = observation(CTX, payload)
    assert event.fields == {"status": "ok", "_trimmed_by_hook_client": ["tool_response.content"]}
    assert event.summary == "Odd: ok"
