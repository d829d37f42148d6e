"""What a failed command said went wrong: the line of its output that a fix lesson quotes.

A fix lesson's situation is what a later session recognises its own trouble by, so it has to be the
cause, and a command's output rarely starts with it: Claude Code's tool error begins "Exit code 1",
pytest prints its session banner and platform first, a build the command it ran. The situation is:

- the first line that names an error: it holds one of ``ConsolidationPolicy.error_cues`` ("error",
  "exception", "cannot", "not found" ...; as part of a word too, so ``ImportError`` and
  ``IOException`` count), without a test runner's margin (pytest's ``E   ``);
- failing that, the first line that is not boilerplate;
- failing that, the first line.

Boilerplate is told by its shape, whatever the tool: an exit status alone ("Exit code 1", "exit
status 2"), a rule or a heading framed by rule characters ("===== test session starts =====",
"____ ERROR collecting tests/x.py ____": it names where, not what), and a line of counts alone
("1 failed, 3 passed in 0.2s", "collected 0 items / 1 error").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LINE_LIMIT = 160  # characters of the line a lesson quotes
_MARGIN = re.compile(r"^E\s{2,}")
_EXIT_STATUS = re.compile(
    r"^(?:exit(?:ed)?(?: with)?(?: code| status)?|process exited with(?: code)?|"
    r"command failed with exit code|returned non-zero exit status)\s*:?\s*-?\d+\.?$",
    re.IGNORECASE,
)
_RULE = r"[=\-_*#~+]"
_FRAMED = re.compile(rf"^{_RULE}{{3,}}(?:.*{_RULE}{{3,}})?$")
_COUNT = r"\d+ [a-z]+"
# counts and nothing else, after at most one word: "1 error in 0.21s", "collected 4 items / 1 error"
_COUNTS = re.compile(
    rf"^(?:[a-z]+:? )?{_COUNT}(?:\s*[/,;]\s*{_COUNT})*(?: in [\d.]+\s*m?s)?\.?$", re.IGNORECASE
)


def boilerplate(line: str) -> bool:
    """An exit status, a rule or framed heading, or a count of results: no cause in it."""
    return bool(_EXIT_STATUS.match(line) or _FRAMED.match(line) or _COUNTS.match(line))


def _clipped(line: str) -> str:
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1].rstrip() + "…"


def what_went_wrong(output: str, error_cues: Iterable[str]) -> str:
    """The line of ``output`` a lesson quotes as its situation ("" for an empty output)."""
    lines = [_MARGIN.sub("", raw.strip()).strip() for raw in output.splitlines()]
    lines = [line for line in lines if line]
    cues = tuple(cue.lower() for cue in error_cues if cue)
    said = [line for line in lines if not boilerplate(line)]
    named = next((line for line in said if any(cue in line.lower() for cue in cues)), "")
    return _clipped(named or (said[0] if said else lines[0] if lines else ""))


__all__ = ["LINE_LIMIT", "boilerplate", "what_went_wrong"]
