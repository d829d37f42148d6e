"""What a failed command said went wrong: the line of its output that names the error.

Two readers ask it: the consolidate cycle (a fix lesson's situation, what a later session recognises
its own trouble by) and session context (a tool error's line shows its cause first). A command's
output rarely starts with its cause: Claude Code's tool error begins "Exit code 1", pytest prints
its session banner and platform first, a build the command it ran. The line is:

- the first line that names an error: it holds one of ``error_cues`` (``ERROR_CUES`` by default,
  the consolidate service's ``ERROR_CUES`` setting: "error", "exception", "cannot", "not found" ...;
  as part of a word too, so ``ImportError`` and ``IOException`` count), without a test runner's
  margin (pytest's ``E   ``);
- failing that, the first line that is not boilerplate;
- failing that, the first line.

Boilerplate is told by its shape, whatever the tool: an exit status alone ("Exit code 1", "exit
status 2"), a field a tool prints empty (Gemini CLI's "Error: (none)"), a rule or a heading framed
by rule characters ("===== test session starts =====", "____ ERROR collecting tests/x.py ____": it
names where, not what), and a line of counts alone ("1 failed, 3 passed in 0.2s", "collected 0
items / 1 error").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LINE_LIMIT = 160  # characters of the line a lesson quotes
# how a failed command's output names what went wrong; matched in lower case, as part of a word too
# ("importerror", "ioexception")
ERROR_CUES = (
    "error",
    "exception",
    "failed",
    "failure",
    "fatal",
    "panic",
    "cannot",
    "can't",
    "could not",
    "not found",
    "no such",
    "denied",
    "undefined",
    "unresolved",
    "refused",
    "timed out",
    "invalid",
)
_MARGIN = re.compile(r"^E\s{2,}")
_EXIT_STATUS = re.compile(
    r"^(?:exit(?:ed)?(?: with)?(?: code| status)?|process exited with(?: code)?|"
    r"command failed with exit code|returned non-zero exit status)\s*:?\s*-?\d+\.?$",
    re.IGNORECASE,
)
_EMPTY_FIELD = re.compile(r"^[\w ]{1,40}:\s*\((?:none|empty|null)\)$", re.IGNORECASE)  # "Error: (none)"
_RULE = r"[=\-_*#~+]"
_FRAMED = re.compile(rf"^{_RULE}{{3,}}(?:.*{_RULE}{{3,}})?$")
_COUNT = r"\d+ [a-z]+"
# counts and nothing else, after at most one word: "1 error in 0.21s", "collected 4 items / 1 error"
_COUNTS = re.compile(
    rf"^(?:[a-z]+:? )?{_COUNT}(?:\s*[/,;]\s*{_COUNT})*(?: in [\d.]+\s*m?s)?\.?$", re.IGNORECASE
)


def framing(line: str) -> bool:
    """An exit status, a field with no value, a rule or framed heading: what frames an output."""
    return bool(_EXIT_STATUS.match(line) or _EMPTY_FIELD.match(line) or _FRAMED.match(line))


def counts(line: str) -> bool:
    """A line of counts alone: "1 failed, 3 passed in 0.2s"."""
    return bool(_COUNTS.match(line))


def boilerplate(line: str) -> bool:
    """Framing (``framing``), or a count of results: no cause in it."""
    return framing(line) or counts(line)


def _lines(output: str) -> list[str]:
    return [line for raw in output.splitlines() if (line := _MARGIN.sub("", raw.strip()).strip())]


def _names_error(line: str, cues: tuple[str, ...]) -> bool:
    low = line.lower()
    return any(cue in low for cue in cues)


def _clipped(line: str) -> str:
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1].rstrip() + "…"


def what_went_wrong(output: str, error_cues: Iterable[str] = ERROR_CUES) -> str:
    """The line of ``output`` a lesson quotes as its situation ("" for an empty output)."""
    lines = _lines(output)
    cues = tuple(cue.lower() for cue in error_cues if cue)
    said = [line for line in lines if not boilerplate(line)]
    named = next((line for line in said if _names_error(line, cues)), "")
    return _clipped(named or (said[0] if said else lines[0] if lines else ""))


def cause_first(output: str, error_cues: Iterable[str] = ERROR_CUES) -> list[str]:
    """``output``'s lines as a reader wants them: the first that names an error, then the others in
    their order, boilerplate left out (none left: the lines as they were)."""
    lines = _lines(output)
    cues = tuple(cue.lower() for cue in error_cues if cue)
    said = [line for line in lines if not boilerplate(line)]
    named = next((n for n, line in enumerate(said) if _names_error(line, cues)), None)
    if named is None:
        return said or lines
    return [said[named], *said[:named], *said[named + 1 :]]


__all__ = ["ERROR_CUES", "LINE_LIMIT", "boilerplate", "cause_first", "counts", "framing", "what_went_wrong"]
