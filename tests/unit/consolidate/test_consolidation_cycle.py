"""A cycle over a folded view: its events, folded back, leave nothing for the next cycle to do."""

from consolidatekit import Log, at_angle, unit  # type: ignore[import-not-found]

from codememory.consolidate.cycle import run_cycle
from codememory.consolidate.decay import DAY
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.view import ConsolidationView
from codememory.events import (
    ConsolidationCompleted,
    ImportanceDecayed,
    InsightDerived,
    MemoriesMerged,
    MemoriesUnmerged,
    MemorySuperseded,
    PromptSubmitted,
    SessionEnded,
    SessionSummarized,
    ToolFailed,
    ToolObserved,
)

POLICY = ConsolidationPolicy()


def _history() -> tuple[Log, dict[str, str]]:
    log = Log()
    ids = {
        "old": log.stored("Use 4 spaces for indentation in Python files.", unit(1), session="a"),
        "lint1": log.stored("We lint with ruff, not flake8.", unit(0, 1), kind="prompt", session="a"),
        "lint2": log.stored("Lint with ruff and not flake8.", unit(0.15, 0.99), kind="note", session="b"),
        "new": log.stored("From now on indent Python files with 2 spaces.", at_angle(0.8), session="b"),
    }
    agent = {"session_id": "b", "agent": "claude", "repo": "r"}
    log.add(
        ToolFailed(tool="Bash", kind="shell", command="pytest -q", error="1 failed: test_totals", **agent)
    )
    log.add(
        ToolObserved(
            tool="Edit",
            kind="edit",
            paths=("shop/cart.py",),
            summary="Edited shop/cart.py: round totals",
            **agent,
        )
    )
    log.add(ToolObserved(tool="Bash", kind="shell", command="pytest -q", summary="12 passed", **agent))
    log.add(PromptSubmitted(prompt="No, don't round in the view, round in the model instead.", **agent))
    log.add(SessionEnded(**agent))
    return log, ids


def test_a_cycle_supersedes_merges_and_learns_from_the_session() -> None:
    log, ids = _history()
    view = ConsolidationView()
    view.apply_batch(log.records)
    out = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    events = [e for _, e in out.events]
    (superseded,) = [e for e in events if isinstance(e, MemorySuperseded)]
    assert (superseded.memory_id, superseded.superseded_by) == (ids["old"], ids["new"])
    (merged,) = [e for e in events if isinstance(e, MemoriesMerged)]
    assert {merged.canonical_id, *merged.merged_ids} == {ids["lint1"], ids["lint2"]}
    kinds = sorted(e.kind for e in events if isinstance(e, InsightDerived))
    assert kinds == ["convention", "correction", "fix"]
    fix = next(e for e in events if isinstance(e, InsightDerived) and e.kind == "fix")
    assert "pytest -q" in fix.title and fix.paths == ("shop/cart.py",)
    (summary,) = [e for e in events if isinstance(e, SessionSummarized)]
    assert "shop/cart.py" in summary.summary and "pytest -q" in summary.summary
    # what it quotes (the prompt, both runs of the command) comes first: erasing one erases the summary
    quoted = {e.event_id for _, e in log.records if isinstance(e.payload, PromptSubmitted | ToolFailed)}
    quoted |= {e.event_id for _, e in log.records if getattr(e.payload, "command", "")}
    edit = next(e.event_id for _, e in log.records if getattr(e.payload, "kind", "") == "edit")
    assert len(quoted) == 3 and set(summary.memory_ids[:3]) == quoted and summary.memory_ids[3:] == (edit,)
    assert isinstance(events[-1], ConsolidationCompleted) and events[-1].superseded == 1


def test_the_next_cycle_over_its_own_results_concludes_nothing_again() -> None:
    log, _ = _history()
    view = ConsolidationView()
    view.apply_batch(log.records)
    first = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    for event_id, event in first.events:
        log.add(event, event_id=event_id)
    view.apply_batch(log.records)
    assert "b" not in view.tenant("t").sessions  # a summarised session's steps are dropped
    second = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    assert [type(e).__name__ for _, e in second.events] == ["ConsolidationCompleted"]


def test_the_same_inputs_give_the_same_event_ids() -> None:
    log, _ = _history()
    a, b = ConsolidationView(), ConsolidationView()
    a.apply_batch(log.records)
    b.apply_batch(log.records)
    first = run_cycle(a.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=a.last_seq)
    again = run_cycle(b.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=b.last_seq)
    assert [i for i, _ in first.events] == [i for i, _ in again.events]


def _restated(log: Log, text: str, vector: object) -> tuple[str, str]:
    return (
        log.stored(text, vector, kind="prompt", session="a"),
        log.stored(text, vector, kind="prompt", session="b"),
    )


def test_a_restated_task_is_no_convention_and_a_restated_rule_is_one() -> None:
    log = Log()
    _restated(log, "fix the type errors in shop/cart.py", unit(1))
    _restated(log, "always run the tests with pytest -n auto", unit(0, 1))
    view = ConsolidationView()
    view.apply_batch(log.records)
    out = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    merged = [e for _, e in out.events if isinstance(e, MemoriesMerged)]
    assert len(merged) == 2  # both restatements merge ...
    (lesson,) = [e for _, e in out.events if isinstance(e, InsightDerived)]
    assert lesson.kind == "convention" and lesson.title == "always run the tests with pytest -n auto"
    assert lesson.what_worked == ""  # ... and the rule's text is not repeated in its lesson


def test_a_convention_restated_only_with_a_lead_in_is_titled_by_its_rule() -> None:
    log = Log()
    log.stored("reminder: always run the tests with pytest -n auto", unit(1), kind="prompt", session="a")
    log.stored("again, always run the tests with pytest -n auto", unit(1), kind="prompt", session="b")
    view = ConsolidationView()
    view.apply_batch(log.records)
    out = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    (lesson,) = [e for _, e in out.events if isinstance(e, InsightDerived)]
    assert lesson.title == "always run the tests with pytest -n auto"


def test_a_convention_is_superseded_with_the_rule_it_was_drawn_from() -> None:
    log = Log()
    _restated(log, "always use 4 spaces for indentation in Python files", unit(1))
    view = ConsolidationView()
    view.apply_batch(log.records)
    first = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    for event_id, event in first.events:
        log.add(event, event_id=event_id)
    (lesson,) = [e for _, e in first.events if isinstance(e, InsightDerived)]
    (merge,) = [e for _, e in first.events if isinstance(e, MemoriesMerged)]
    new = log.stored("From now on indent Python files with 2 spaces.", at_angle(0.8), session="c")
    view.apply_batch(log.records)
    second = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    superseded = {e.memory_id: e.superseded_by for _, e in second.events if isinstance(e, MemorySuperseded)}
    assert superseded == {merge.canonical_id: new, lesson.insight_id: new}


def test_an_unmerged_pair_is_active_again_and_never_merged_again() -> None:
    """A merge records its evidence; ``memories.unmerged`` takes it back and later cycles, even with a
    new restatement of both, keep the pair apart."""
    log, _ = _history()
    view = ConsolidationView()
    view.apply_batch(log.records)
    first = run_cycle(view.tenant("t"), "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    (merged,) = [e for _, e in first.events if isinstance(e, MemoriesMerged)]
    assert "alike by vector" in merged.reason and "2 session(s)" in merged.reason
    for event_id, event in first.events:
        log.add(event, event_id=event_id)
    (gone,) = merged.merged_ids
    log.add(MemoriesUnmerged(canonical_id=merged.canonical_id, memory_ids=(gone,), reason="not the same"))
    third = log.stored("Lint with ruff, never flake8.", unit(0.08, 0.99), kind="prompt", session="c")
    view.apply_batch(log.records)
    tenant = view.tenant("t")
    assert tenant.memories[gone].state == "active" and tenant.memories[merged.canonical_id].restated == 1
    again = run_cycle(tenant, "t", POLICY, now=log.clock + 60, up_to_seq=view.last_seq)
    (joined,) = [{e.canonical_id, *e.merged_ids} for _, e in again.events if isinstance(e, MemoriesMerged)]
    assert third in joined and not {gone, merged.canonical_id} <= joined


def test_a_rule_restated_lately_does_not_decay_from_its_first_statement() -> None:
    """Stating a fact again is using it: a canonical memory first stated 200 days ago decays from its
    latest restatement (merged in the same cycle, then folded from LOG by the next), while a rule
    stated as long ago and never again fades."""
    log = Log()
    log.clock -= 200 * DAY
    first = log.stored("We lint with ruff, not flake8.", unit(0, 1), kind="prompt", session="a")
    lone = log.stored("Use 4 spaces for indentation in Python files.", unit(1), session="a")
    early = log.stored("We lint with ruff and never flake8.", unit(0.05, 1), kind="note", session="c")
    log.clock += 199 * DAY
    again = log.stored("Lint with ruff and not flake8.", unit(0.15, 0.99), kind="note", session="b")
    view = ConsolidationView()
    view.apply_batch(log.records)
    now = log.clock + DAY
    cycle = run_cycle(view.tenant("t"), "t", POLICY, now=now, up_to_seq=view.last_seq)
    (merged,) = [e for _, e in cycle.events if isinstance(e, MemoriesMerged)]
    assert {merged.canonical_id, *merged.merged_ids} == {first, early, again}
    decayed = {
        a.memory_id for _, e in cycle.events if isinstance(e, ImportanceDecayed) for a in e.adjustments
    }
    assert lone in decayed and merged.canonical_id not in decayed
    assert early not in decayed  # merged by this cycle: it leaves recall, nothing to decay
    for event_id, event in cycle.events:
        log.add(event, event_id=event_id)
    view.apply_batch(log.records)
    later = run_cycle(view.tenant("t"), "t", POLICY, now=now + 20 * DAY, up_to_seq=view.last_seq)
    decayed = {
        a.memory_id for _, e in later.events if isinstance(e, ImportanceDecayed) for a in e.adjustments
    }
    assert merged.canonical_id not in decayed  # 21 days since its restatement: less than a step
    memories = view.tenant("t").memories
    canonical = memories[merged.canonical_id]
    latest, *rest = sorted(merged.merged_ids, key=lambda m: -memories[m].created_at)
    assert latest == again and canonical.last_stated == memories[again].created_at
    log.add(MemoriesUnmerged(canonical_id=merged.canonical_id, memory_ids=(again,), reason="no"))
    view.apply_batch(log.records)
    assert canonical.last_stated == memories[rest[0]].created_at  # what stays merged says it
