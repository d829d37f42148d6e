"""A tool call's arguments in a context line: only what the call's summary does not already say.

An observation's text is ingest's one-line summary of the call ("Ran `pytest -x` → ok", "Read
api/client.py"), then the call's arguments as JSON, then its output. In session context the
arguments mostly say the summary again: ``{"command": "pytest -x", "description": "run the
tests"}`` after "Ran `pytest -x`", ``{"file_path": "/home/me/shop/api/client.py"}`` after "Read
api/client.py": braces, quotes and a path said twice, a third of a short line of a budget counted
in tokens. ``unsaid_arguments`` keeps the arguments the summary does not say, as ``key: value``
in parentheses, and drops the line when none is left. A value is said when the summary holds it,
or, for a path, its end from a separator on (the summary names a path from the repository's root).

Arguments that are not one JSON object (an edit's old and new text, a written file's content, an
input cut short by the excerpt's limit) stay as they are. The memory's text is unchanged: this is
how a line shows it, and what the line is flagged for is read in the whole text.
"""

from __future__ import annotations

import json

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


def unsaid_arguments(text: str) -> str:
    """An observation's ``text`` with its arguments' line reduced to what its summary does not say."""
    summary, _, rest = text.partition("\n")
    line, _, output = rest.partition("\n")
    if not line.startswith("{") or not line.endswith("}"):
        return text
    try:
        arguments = json.loads(line)
    except ValueError:
        return text
    if not isinstance(arguments, dict):
        return text
    places = tuple(p for t in summary.split() if ("/" in (p := t.strip(_QUOTES)) or "." in p) and len(p) > 2)
    unsaid = [f"{key}: {_shown(v)}" for key, v in arguments.items() if not _said(v, summary, places)]
    shown = f"({'; '.join(unsaid)})" if unsaid else ""
    return "\n".join(part for part in (summary, shown, output) if part)


__all__ = ["unsaid_arguments"]
