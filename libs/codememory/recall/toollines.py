"""How a tool's memory reads in a context line: what it says first, nothing said twice.

A context line is cut at ``max_line_tokens``, so what a tool's memory leads with is what the agent
reads. ``shown_text`` gives a line the text of a memory as follows (its stored text is unchanged):

- a tool error (type ``failure``): its first line ("Bash failed: pytest -q"), then the line of its
  output that names the error (``memory.failurelines``), then the rest without boilerplate (the
  exit status, banners and rules): "Exit code 1" and pytest's session banner used to fill the line
  before the cause;
- a tool's output (type ``observation``): its arguments only where its summary does not say them
  (``unsaid_arguments``), its output without what frames it (an exit status, rules and banners;
  its counts stay: "3 passed" is what a passing run says).

An observation's text is ingest's one-line summary of the call ("Ran `pytest -x` → ok", "Read
api/client.py"), then the call's arguments as JSON, then its output. In session context the
arguments mostly say the summary again: ``{"command": "pytest -x", "description": "run the
tests"}`` after "Ran `pytest -x`", ``{"file_path": "/home/me/shop/api/client.py"}`` after "Read
api/client.py": braces, quotes and a path said twice, a third of a short line of a budget counted
in tokens. ``unsaid_arguments`` keeps the arguments the summary does not say, as ``key: value``
in parentheses, and drops the line when none is left. A value is said when the summary holds it,
or, for a path, its end from a separator on (the summary names a path from the repository's root).

Arguments that are not one JSON object (an edit's old and new text, a written file's content, an
input cut short by the excerpt's limit), one the summary says nothing of, or one holding a control
character or a lone surrogate once decoded, stay as they are. What a line is flagged for is read in
both the stored text and the text shown (``provenance.flags_of``): decoding or leaving a line out
must not hide what the text tries.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator, Mapping

from codememory.memory.failurelines import cause_first, counts, framing, unframed

_QUOTES = "`'\".,:;()"


def _said(value: object, summary: str, places: tuple[str, ...]) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip()
    if not text or text in summary:
        return True
    return any(text.endswith(place) and text[-len(place) - 1] in "/\\" for place in places if place != text)


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _plain(text: str) -> bool:
    """No control character or lone surrogate: decoded, the value stays one line of text that encodes
    (the JSON holds them escaped; shown raw, a line would break or the hook could not write it)."""
    return not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def unsaid_arguments(text: str) -> str:
    """An observation's ``text`` with its arguments' line reduced to what its summary does not say.
    Only the call's arguments: a JSON object the summary says none of (a written file's content that
    is one line of JSON) is content, and stays as it is."""
    summary, _, rest = text.partition("\n")
    line, _, output = rest.partition("\n")
    if not line.startswith("{") or not line.endswith("}"):
        return text
    try:
        arguments = json.loads(line)
    except ValueError:
        return text
    if not isinstance(arguments, dict) or not all(_plain(t) for t in _strings(arguments)):
        return text
    places = tuple(p for t in summary.split() if ("/" in (p := t.strip(_QUOTES)) or "." in p) and len(p) > 2)
    said = {key for key, v in arguments.items() if _said(v, summary, places)}
    if not any(isinstance(arguments[key], str) and arguments[key].strip() for key in said):
        return text
    unsaid = [f"{key}: {_shown(v)}" for key, v in arguments.items() if key not in said]
    shown = f"({'; '.join(unsaid)})" if unsaid else ""
    return "\n".join(part for part in (summary, shown, output) if part)


def _unframed(line: str) -> str:
    """An output's line without its frame: "" for a rule, a banner or an exit status, the count
    inside a framed one ("===== 3 passed in 0.10s =====": "3 passed in 0.10s")."""
    if not framing(line.strip()):
        return line
    inner = unframed(line.strip())
    return inner if counts(inner) else ""


def shown_text(payload: Mapping[str, object]) -> str:
    """A memory's text as its context line shows it (see the module's docstring)."""
    text = str(payload.get("text", ""))
    kind = payload.get("type")
    if kind == "observation":
        head, *rest = unsaid_arguments(text).split("\n")
        return "\n".join([head, *(shown for line in rest if (shown := _unframed(line)))])
    if kind == "failure":
        head, _, output = text.partition("\n")
        return "\n".join([head, *cause_first(output)]) if output else text
    return text


__all__ = ["shown_text", "unsaid_arguments"]
