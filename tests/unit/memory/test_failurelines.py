"""The line of a failure that names its error: the cause, not the exit status or a banner."""

from __future__ import annotations

import json

import pytest

from codememory.memory.failurelines import ERROR_CUES, LINE_LIMIT, boilerplate, cause_first, what_went_wrong
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]

PYTEST = """============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
rootdir: /home/dev/shop
collected 0 items / 1 error

==================================== ERRORS ====================================
___________________ ERROR collecting tests/test_payments.py ____________________
ImportError while importing test module '/home/dev/shop/tests/test_payments.py'.
E   ImportError: cannot import name 'Client' from 'api' (/home/dev/shop/api/__init__.py)
=========================== short test summary info ============================
ERROR tests/test_payments.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.21s ==============================="""


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (  # Claude Code's tool error: the exit status first, pytest's margin before the cause
            "Exit code 1\nE   ImportError: cannot import name 'Client' from 'api'\n1 error in 0.21s",
            "ImportError: cannot import name 'Client' from 'api'",
        ),
        (PYTEST, "ImportError: cannot import name 'Client' from 'api' (/home/dev/shop/api/__init__.py)"),
        (
            "ImportError while importing test module 'tests/x.py'.\nHint: make sure",
            "ImportError while importing test module 'tests/x.py'.",
        ),
        ("##### ERROR: disk full #####", "ERROR: disk full"),
        (
            'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\n'
            "KeyError: 'DATABASE_URL'",
            "KeyError: 'DATABASE_URL'",
        ),
        (
            "# shop/cart\n./cart.go:14:2: undefined: roundTotal\n",
            "./cart.go:14:2: undefined: roundTotal",
        ),
        (
            "   Compiling shop v0.1.0\nerror[E0308]: mismatched types\n --> src/cart.rs:14:5",
            "error[E0308]: mismatched types",
        ),
        ("npm ERR! code ENOENT\nnpm ERR! path /app/package.json", "npm ERR! code ENOENT"),
        ("exit status 2\nmake: *** [Makefile:12: build] Error 2", "make: *** [Makefile:12: build] Error 2"),
        (  # Gemini CLI's shell result: its empty fields name no error
            "Command: pytest -q\nDirectory: (root)\nOutput: FAILED tests/test_cart.py::test_totals\n"
            "Error: (none)\nExit Code: 1\nSignal: (none)",
            "Output: FAILED tests/test_cart.py::test_totals",
        ),
    ],
)
def test_the_situation_is_the_line_that_names_the_error(output: str, expected: str) -> None:
    assert what_went_wrong(output, ERROR_CUES) == expected


def test_without_an_error_word_the_first_line_that_is_not_boilerplate() -> None:
    # the real PostToolUseFailure payload of the shared set: `ls` of a symlink with extended attributes
    payload = json.loads((HOOKS_DATA / "claude_PostToolUseFailure_Bash.json").read_text())
    line = what_went_wrong(payload["error"], ERROR_CUES)
    assert line.startswith("lrwxr-xr-x@ 1 tomkwon") and "Exit code" not in line


def test_only_boilerplate_or_nothing() -> None:
    assert what_went_wrong("Exit code 1", ERROR_CUES) == "Exit code 1"
    assert what_went_wrong("\n  \n", ERROR_CUES) == ""


def test_the_cues_are_configuration() -> None:
    output = "Exit code 3\nwarming caches\nsegmentation fault (core dumped)"
    assert what_went_wrong(output, ERROR_CUES) == "warming caches"
    assert what_went_wrong(output, ("segmentation fault",)) == "segmentation fault (core dumped)"


def test_a_long_line_is_cut() -> None:
    line = what_went_wrong("ValueError: " + "x" * 500, ERROR_CUES)
    assert len(line) == LINE_LIMIT and line.endswith("…")


@pytest.mark.parametrize(
    "line",
    [
        "Exit code 1",
        "exit status 2",
        "Process exited with code 137",
        "Error: (none)",
        "returned non-zero exit status 1.",
        "==================== 1 failed, 3 passed in 0.20s ====================",
        "____ test_totals ____",
        "-----",
        "3 passed, 1 failed in 0.2s",
    ],
)
def test_boilerplate_by_its_shape(line: str) -> None:
    assert boilerplate(line)


@pytest.mark.parametrize(
    "line",
    [
        "E   assert 3 == 2",
        "FAILED tests/test_cart.py::test_totals - assert 3 == 2",
        "exit 1 was expected here",
    ],
)
def test_not_boilerplate(line: str) -> None:
    assert not boilerplate(line)


def test_cause_first_lifts_the_error_and_leaves_boilerplate_out() -> None:
    output = "Exit code 1\n" + PYTEST + "\nE   AttributeError: no attribute '_post'"
    lines = cause_first(output)
    assert lines[0] == "ImportError: cannot import name 'Client' from 'api' (/home/dev/shop/api/__init__.py)"
    assert lines[1].startswith("platform linux") and "Exit code 1" not in lines
    assert (
        not any(boilerplate(line) for line in lines) and lines[-1] == "AttributeError: no attribute '_post'"
    )
    assert cause_first("Exit code 1\nall good") == ["all good"]
    assert cause_first("Exit code 1") == ["Exit code 1"]


@pytest.mark.parametrize(
    "line",
    ["tests/test_invalid_input.py ..F", "rootdir: /home/me/error-tracker", "cc -Wall -Werror -c cart.c"],
)
def test_a_cue_inside_a_path_or_a_word_names_no_error(line: str) -> None:
    # were the cue found in the second line, it would be quoted instead of the first
    assert what_went_wrong(f"something broke\n{line}") == "something broke"
    assert what_went_wrong(f"something broke\n{line}\nKeyError: 'x'") == "KeyError: 'x'"


@pytest.mark.parametrize("line", ["expected 3 columns", "found 3 vulnerabilities", "missing 2 files"])
def test_a_line_that_only_looks_like_counts_is_no_boilerplate(line: str) -> None:
    assert not boilerplate(line) and cause_first(f"Exit code 1\n{line}") == [line]
