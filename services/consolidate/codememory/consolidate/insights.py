"""Lessons and summaries from finished sessions, extracted from what happened (no model, offline).

A session is finished when it ended (``session.ended``) or has been idle ``session_idle_hours``.
From each, once:

- a **fix**: a command failed, files were edited, and the same command then passed; the lesson
  names the command, what went wrong (``failurelines``: the line of the failure that names an
  error, not its exit status or a banner) and the edits that made it pass;
- a **correction**: the user's prompt pushed back on what the agent had just done (``correction_cues``:
  "no,", "don't", "instead" ...); the lesson is what the user asked for instead;
- a **summary** of the session: what was asked, which files changed, which commands failed and
  passed; the next session's context finds it (type ``summary``).

Conventions (a stated rule restated across sessions) come from merges, in ``cycle``. A ``Phraser``
may reword a lesson (an OpenAI-compatible endpoint, when configured); its output is an event like any
other, so replay never calls it again.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime

from codememory.clip import clip
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.sessions import SessionLog, Step
from codememory.events import InsightKind
from codememory.memory.cues import has_cue
from codememory.memory.failurelines import what_went_wrong

_SAYS_SOMETHING = 20  # characters a prompt needs to be worth naming in a summary (as session context)


@dataclass(frozen=True)
class Lesson:
    kind: InsightKind
    title: str
    situation: str
    what_worked: str
    evidence: tuple[str, ...]
    paths: tuple[str, ...] = ()


def _first_line(text: str, limit: int = 160) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return clip(line, limit)


def finished(session: SessionLog, now: float, policy: ConsolidationPolicy) -> bool:
    return bool(session.steps) and (
        session.ended or now - session.last_at >= policy.session_idle_hours * 3600
    )


def fixes(steps: list[Step], policy: ConsolidationPolicy) -> list[Lesson]:
    """Each failing command followed by edits and then the same command passing; the situation is
    the line of the failure that says what went wrong (``failurelines``)."""
    out = []
    for i, failed in enumerate(steps):
        if failed.kind != "run_failed" or not failed.command:
            continue
        edits: list[Step] = []
        for later in steps[i + 1 :]:
            if later.kind == "edit":
                edits.append(later)
            elif later.command == failed.command and later.kind in ("run_ok", "run_failed"):
                if later.kind == "run_ok" and edits:
                    paths = tuple(dict.fromkeys(p for e in edits for p in e.paths))
                    changed = ", ".join(paths[:4]) or "code"
                    out.append(
                        Lesson(
                            kind="fix",
                            title=f"`{failed.command}` failed, then passed after changing {changed}",
                            situation=what_went_wrong(failed.output or failed.text, policy.error_cues)
                            or f"`{failed.command}` failed",
                            what_worked="; ".join(_first_line(e.text, 120) for e in edits[:4] if e.text),
                            evidence=(failed.event_id, *(e.event_id for e in edits), later.event_id),
                            paths=paths,
                        )
                    )
                break  # the next run of the command decides this failure either way
    return out


def corrections(steps: list[Step], policy: ConsolidationPolicy) -> list[Lesson]:
    """Prompts that push back on what the agent had just done."""
    out = []
    for before, prompt in itertools.pairwise(steps):
        if prompt.kind != "prompt" or before.kind == "prompt":
            continue
        if not has_cue(prompt.text, policy.correction_cues):
            continue
        did = _first_line(before.text or before.command, 140)
        out.append(
            Lesson(
                kind="correction",
                title=_first_line(prompt.text, 120),
                situation=f"after the agent's {before.kind.replace('_', ' ')}" + (f": {did}" if did else ""),
                what_worked=prompt.text,
                evidence=(before.event_id, prompt.event_id),
                paths=before.paths,
            )
        )
    return out


def _quoted(session: SessionLog, policy: ConsolidationPolicy) -> tuple[list[Step], list[str], list[str]]:
    """The prompts, failed and passed commands a summary names."""
    n = policy.summary_items
    steps = session.steps
    asked = [s for s in steps if s.kind == "prompt" and len(_first_line(s.text, 100)) >= _SAYS_SOMETHING]
    failed = list(dict.fromkeys(s.command for s in session.steps if s.kind == "run_failed" and s.command))
    passed = list(dict.fromkeys(s.command for s in session.steps if s.kind == "run_ok" and s.command))
    return asked[:n], failed[:n], passed[:n]  # not "thanks", "looks good"


def summary_sources(session: SessionLog, policy: ConsolidationPolicy) -> tuple[str, ...]:
    """The memories whose text the summary repeats (its prompts, and every run of a command it names):
    erasing any of them erases the summary (``codememory.sealing``)."""
    prompts, failed, passed = _quoted(session, policy)
    commands = {*failed, *passed}
    runs = [s for s in session.steps if s.kind in ("run_ok", "run_failed") and s.command in commands]
    return tuple(dict.fromkeys(s.event_id for s in (*prompts, *runs)))


def summary(session: SessionLog, policy: ConsolidationPolicy) -> str:
    """What the session did, in a few lines."""
    n = policy.summary_items
    quoted, failed, passed = _quoted(session, policy)
    prompts = [_first_line(s.text, 100) for s in quoted]
    files = list(dict.fromkeys(p for s in session.steps if s.kind == "edit" for p in s.paths))
    day = datetime.fromtimestamp(session.last_at, UTC).strftime("%Y-%m-%d") if session.last_at else ""
    name = session.repo.rstrip("/").rsplit("/", 1)[-1]  # the repository's name, not its path or host
    head = ["Session", f"of {day}" if day else "", f"in {name}" if name else ""]
    lines = [" ".join(p for p in head if p) + ":"]
    if prompts:
        lines.append("asked: " + " | ".join(prompts))
    if files:
        lines.append(f"changed {len(files)} file(s): " + ", ".join(files[:n]))
    if failed:
        lines.append("failed: " + ", ".join(failed))
    if passed:
        lines.append("passed: " + ", ".join(passed))
    return "\n".join(lines) if len(lines) > 1 else ""
