"""A session as the steps that matter for its lessons: prompts, edits, and runs that failed or passed.

The consolidate view keeps these per session so a finished session can be read back in order: a
failing command, the edits after it and the same command passing is a fix; a prompt that pushes back
on what the agent just did is a correction. Steps are small (an excerpt, the paths, the command).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from codememory.events import Envelope, PromptSubmitted, ToolFailed, ToolObserved

StepKind = Literal["prompt", "edit", "run_ok", "run_failed", "action"]
_EXCERPT = 400
_OUTPUT = 2000  # of a failed run's output: its cause may follow a banner and a traceback


@dataclass(frozen=True, kw_only=True)
class Step:
    seq: int
    session_id: str
    repo: str
    kind: StepKind
    event_id: str  # the memory id of what the step became (memories take their event's id)
    at: float
    text: str = ""
    output: str = ""  # a failed run's output or error (``failurelines`` finds its cause in it)
    command: str = ""
    paths: tuple[str, ...] = ()


@dataclass
class SessionLog:
    session_id: str
    repo: str
    steps: list[Step] = field(default_factory=list)
    ended: bool = False

    def add(self, step: Step) -> None:
        self.steps.append(step)
        if not self.repo:
            self.repo = step.repo

    @property
    def last_at(self) -> float:
        return self.steps[-1].at if self.steps else 0.0


def normalise_command(command: str) -> str:
    """A command without its spacing, so a rerun of the same command is recognised."""
    return " ".join(command.split())


def step_of(seq: int, envelope: Envelope) -> Step | None:
    """The step an agent event is, or None for events that are not steps."""
    event = envelope.payload
    kind: StepKind
    paths: tuple[str, ...]
    output = ""
    match event:
        case PromptSubmitted() if event.prompt.strip():
            kind, text, command, paths = "prompt", event.prompt, "", ()
        case ToolObserved(phase="post"):
            kind = "action"
            if event.kind in ("edit", "write"):
                kind = "edit"
            elif event.kind == "shell":
                kind = "run_ok" if event.succeeded else "run_failed"
            text, command, paths = event.summary or event.output_excerpt, event.command, event.paths
            output = event.output_excerpt if kind == "run_failed" else ""
        case ToolFailed():
            kind, text, command, paths = "run_failed", event.error, event.command, event.paths
            output = event.error
        case _:
            return None
    return Step(
        seq=seq,
        session_id=event.session_id,
        repo=event.repo,
        kind=kind,
        event_id=envelope.event_id,
        at=envelope.occurred_at.timestamp(),
        text=text[:_EXCERPT],
        output=output[:_OUTPUT],
        command=normalise_command(command),
        paths=tuple(paths),
    )
