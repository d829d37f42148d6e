"""Fix lessons from a session's steps: the failure, the edits that made the command pass, and what
went wrong in the failure's own words."""

from __future__ import annotations

from consolidatekit import Log  # type: ignore[import-not-found]

from codememory.consolidate.insights import fixes
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.sessions import Step, step_of
from codememory.events import PromptSubmitted, ToolFailed, ToolObserved

POLICY = ConsolidationPolicy()
AGENT = {"session_id": "s", "agent": "claude", "repo": "r"}
PYTEST_OUTPUT = (
    "============================= test session starts ==============================\n"
    "collected 4 items\n\ntests/test_cart.py .F..\n\n"
    "___________________________________ test_totals ___________________________________\n"
    "    def test_totals():\n>       assert total([1.005]) == 1.01\n"
    "E       AssertionError: assert 1.0 == 1.01\n"
    "=========================== 1 failed, 3 passed in 0.20s ==========================="
)


def _steps(*events: object) -> list[Step]:
    log = Log()
    for event in events:
        log.add(event)
    return [step for seq, envelope in log.records if (step := step_of(seq, envelope)) is not None]


def _edit(path: str, summary: str) -> ToolObserved:
    return ToolObserved(tool="Edit", kind="edit", paths=(path,), summary=summary, **AGENT)


def _passed(command: str) -> ToolObserved:
    return ToolObserved(tool="Bash", kind="shell", command=command, summary="4 passed", **AGENT)


def test_a_tool_error_gives_its_cause_as_the_situation_not_its_exit_status() -> None:
    error = "Exit code 1\nE   ImportError: cannot import name 'Client' from 'api' (api/__init__.py)\n1 error"
    steps = _steps(
        PromptSubmitted(prompt="the payments tests fail, can you fix them?", **AGENT),
        ToolFailed(tool="Bash", kind="shell", command="pytest  tests/test_payments.py", error=error, **AGENT),
        _edit("api/__init__.py", "Edited api/__init__.py: inserted `from api.client import Client`"),
        _passed("pytest tests/test_payments.py"),
    )
    (lesson,) = fixes(steps, POLICY)
    changed = "after changing api/__init__.py"
    assert lesson.title == f"`pytest tests/test_payments.py` failed, then passed {changed}"
    assert lesson.situation == "ImportError: cannot import name 'Client' from 'api' (api/__init__.py)"
    assert lesson.what_worked == "Edited api/__init__.py: inserted `from api.client import Client`"
    assert lesson.evidence == tuple(s.event_id for s in steps[1:])


def test_a_run_that_exited_non_zero_is_read_in_its_output_not_its_summary() -> None:
    failed = ToolObserved(
        tool="Bash",
        kind="shell",
        command="pytest -q",
        summary="Ran `pytest -q` → exit 1",
        output_excerpt=PYTEST_OUTPUT,
        succeeded=False,
        **AGENT,
    )
    steps = _steps(failed, _edit("shop/cart.py", "Edited shop/cart.py: round half up"), _passed("pytest -q"))
    (lesson,) = fixes(steps, POLICY)
    assert lesson.situation == "AssertionError: assert 1.0 == 1.01"


def test_the_error_cues_are_the_policys() -> None:
    error = "Exit code 139\nloading fixtures\nsegmentation fault (core dumped)"
    steps = _steps(
        ToolFailed(tool="Bash", kind="shell", command="./run", error=error, **AGENT),
        _edit("src/run.c", "Edited src/run.c"),
        _passed("./run"),
    )
    assert fixes(steps, POLICY)[0].situation == "loading fixtures"
    custom = ConsolidationPolicy(error_cues=("segmentation fault",))
    assert fixes(steps, custom)[0].situation == "segmentation fault (core dumped)"


def test_no_lesson_without_an_edit_or_when_the_rerun_fails_again() -> None:
    failed = ToolFailed(tool="Bash", kind="shell", command="make", error="Exit code 2\nerror: boom", **AGENT)
    again = ToolFailed(tool="Bash", kind="shell", command="make", error="Exit code 2\nerror: boom", **AGENT)
    assert fixes(_steps(failed, _passed("make")), POLICY) == []
    assert fixes(_steps(failed, _edit("a.c", "Edited a.c"), again), POLICY) == []
    # a failure with nothing said at all still names its command
    silent = ToolFailed(tool="Bash", kind="shell", command="make", error="", **AGENT)
    (lesson,) = fixes(_steps(silent, _edit("a.c", "Edited a.c"), _passed("make")), POLICY)
    assert lesson.situation == "`make` failed"
