"""What a failed command said went wrong: the line of its output that names the error.

Two readers ask it: the consolidate cycle (a fix lesson's situation, what a later session recognises
its own trouble by) and session context (a tool error's line shows its cause first). A command's
output rarely starts with its cause: Claude Code's tool error begins "Exit code 1", pytest prints
its session banner and platform first, a build the command it ran. The line is:

- the first line that states an error: an error's name and what it says (``KeyError: 'DATABASE_URL'``,
  ``error[E0308]: mismatched types``, ``ERROR: disk full``), without a test runner's margin (pytest's
  ``E   ``), framed or not;
- failing that, the first line that names an error by its type (``ImportError while importing ...``);
- failing that, the first line that is not boilerplate and says one of ``error_cues`` at the start
  of a word, paths left out ("No such file", "undefined: roundTotal", "FAILED tests/x.py::test";
  not "tests/test_invalid_input.py" nor ``-Werror``): ``ERROR_CUES`` by default, the consolidate
  service's ``ERROR_CUES`` setting for its lessons (session context uses the default);
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
from functools import lru_cache

from codememory.clip import clip

LINE_LIMIT = 160  # characters of the line a lesson quotes
# how a failed command's output names what went wrong; matched in lower case at the start of a word
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
_FRAME = "=-_*#~+ "
_RULE = r"[=\-_*#~+]"
_FRAMED = re.compile(rf"^{_RULE}{{3,}}(?:.*{_RULE}{{3,}})?$")
_NOUNS = (
    r"(?:passed|failed|errors?|skipped|warnings?|tests?|items?|xfailed|xpassed|deselected|selected|rerun)"
)
_COUNT = rf"\d+ {_NOUNS}"
# counts and nothing else: "1 error in 0.21s", "collected 4 items / 1 error", "Ran 3 tests in 0.002s"
_COUNTS = re.compile(
    rf"^(?:(?:collected|ran|found|total)\s+)?{_COUNT}\b(?:\s*[/,;]\s*{_COUNT}\b)*(?: in [\d.]+\s*m?s)?\.?$",
    re.IGNORECASE,
)
# an error's name and what it says: "KeyError: ...", "java.io.IOException: ...", "error[E0308]: ...",
# "ERROR: ...", "fatal: ..."
_STATED = re.compile(
    r"(?:\b[A-Za-z_][\w.]*(?:Error|Exception|Failure|Fault)|(?<![\w-])(?:error|fatal|panic)(?:\[\w+\])?)\s*:",
    re.IGNORECASE,
)
_NAMED = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")  # an error's type: ImportError, IOException
_PATHS = re.compile(r"\S*[/\\]\S*")


def _status(line: str) -> bool:
    return bool(_EXIT_STATUS.match(line) or _EMPTY_FIELD.match(line))


def framing(line: str) -> bool:
    """An exit status, a field with no value, a rule or framed heading: what frames an output."""
    return _status(line) or bool(_FRAMED.match(line))


def counts(line: str) -> bool:
    """A line of counts alone: "1 failed, 3 passed in 0.2s"."""
    return bool(_COUNTS.match(line))


def boilerplate(line: str) -> bool:
    """Framing (``framing``), or a count of results: no cause in it."""
    return framing(line) or counts(line)


def _lines(output: str) -> list[str]:
    return [line for raw in output.splitlines() if (line := _MARGIN.sub("", raw.strip()).strip())]


def _names_error(line: str, cues: re.Pattern[str] | None) -> bool:
    return cues is not None and cues.search(_PATHS.sub(" ", line.lower())) is not None


@lru_cache(maxsize=64)
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str] | None:
    words = sorted({cue.lower() for cue in cues if cue}, key=len, reverse=True)
    return re.compile(rf"(?<![a-z0-9_])(?:{'|'.join(map(re.escape, words))})") if words else None


def _cause(lines: list[str], error_cues: Iterable[str]) -> int | None:
    """The index of the line that says what went wrong, by the order in the module's docstring."""
    open_lines = [(n, _PATHS.sub(" ", line)) for n, line in enumerate(lines) if not _status(line)]
    for stated in (_STATED, _NAMED):
        found = next((n for n, line in open_lines if stated.search(line)), None)
        if found is not None:
            return found
    cues = _cue_pattern(tuple(error_cues))
    return next(
        (n for n, line in enumerate(lines) if not boilerplate(line) and _names_error(line, cues)), None
    )


def unframed(line: str) -> str:
    """``line`` without the rule characters framing it ("===== 3 passed =====": "3 passed")."""
    return line.strip(_FRAME).strip() if _FRAMED.match(line) else line


def what_went_wrong(output: str, error_cues: Iterable[str] = ERROR_CUES) -> str:
    """The line of ``output`` a lesson quotes as its situation ("" for an empty output)."""
    lines = _lines(output)
    cause = _cause(lines, error_cues)
    said = [line for line in lines if not boilerplate(line)]
    chosen = lines[cause] if cause is not None else said[0] if said else lines[0] if lines else ""
    return clip(unframed(chosen), LINE_LIMIT)


def cause_first(output: str, error_cues: Iterable[str] = ERROR_CUES) -> list[str]:
    """``output``'s lines as a reader wants them: the one that says what went wrong, then the others
    in their order, boilerplate left out (none left: the lines as they were)."""
    lines = _lines(output)
    cause = _cause(lines, error_cues)
    rest = [line for n, line in enumerate(lines) if n != cause and not boilerplate(line)]
    if cause is None:
        return rest or lines
    return [unframed(lines[cause]), *rest]


__all__ = [
    "ERROR_CUES",
    "LINE_LIMIT",
    "boilerplate",
    "cause_first",
    "counts",
    "framing",
    "unframed",
    "what_went_wrong",
]
