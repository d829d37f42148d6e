"""Trimming long strings: head and tail kept, a marker in between, every cut path recorded."""

from __future__ import annotations

from codememory.hookclient.trim import MAX_TRIMMED_PATHS, trim_string, trim_value


def test_short_strings_are_untouched() -> None:
    assert trim_string("hello", 16) == "hello"


def test_long_string_keeps_head_tail_and_says_how_much_was_cut() -> None:
    text = "H" * 5000 + "M" * 90_000 + "T" * 5000
    out = trim_string(text, 1000)
    assert len(out) <= 1000 + 32
    assert out.startswith("H" * 500)
    assert out.endswith("T" * 100)
    kept = len(out) - len(out[out.index("…") : out.rindex("…") + 1])
    assert f"…[trimmed {len(text) - kept} chars]…" in out


def test_trim_value_records_dotted_paths_with_list_indexes() -> None:
    big = "x" * 500
    value = {
        "tool_input": {"content": big, "edits": [{"new_string": "ok"}, {"new_string": big}]},
        "tool_response": {"content": big},
        "n": 3,
        "flag": None,
    }
    out, paths = trim_value(value, 100)
    assert paths == ["tool_input.content", "tool_input.edits.1.new_string", "tool_response.content"]
    assert isinstance(out, dict)
    assert out["n"] == 3 and out["flag"] is None
    assert out["tool_input"]["edits"][0]["new_string"] == "ok"
    assert len(out["tool_response"]["content"]) < 200
    assert value["tool_response"]["content"] == big  # the input is not modified


def test_trim_value_caps_the_number_of_paths_reported() -> None:
    value = [("y" * 300) for _ in range(MAX_TRIMMED_PATHS + 50)]
    _out, paths = trim_value(value, 256)
    assert len(paths) == MAX_TRIMMED_PATHS + 1
    assert paths[-1] == "…50 more"
