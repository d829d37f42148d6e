"""Cap the strings of a hook payload so every message fits in one NATS message.

NATS refuses payloads over ``max_payload`` (1 MB by default) and an Edit/Write/Read tool response
can carry a whole file, or several. Memory needs the gist of such a field, not every byte, so
each long string keeps its head and tail around a marker saying how much was cut, and the dotted
path of every cut field is recorded so the consumer knows the text is partial.
"""

from __future__ import annotations

__all__ = ["MAX_TRIMMED_PATHS", "trim_marker", "trim_string", "trim_value"]

MAX_TRIMMED_PATHS = 200  # beyond this the list of paths itself would bloat the message


def trim_marker(removed: int) -> str:
    return f"…[trimmed {removed} chars]…"


def trim_string(text: str, cap: int) -> str:
    """``text`` if it fits in ``cap`` characters, else its head and tail around a marker."""
    if len(text) <= cap:
        return text
    keep = max(cap - 32, 16)  # room for the marker
    head = keep * 3 // 4
    tail = keep - head
    return text[:head] + trim_marker(len(text) - head - tail) + text[len(text) - tail :]


def trim_value(value: object, cap: int) -> tuple[object, list[str]]:
    """A copy of a JSON-like ``value`` with every string longer than ``cap`` trimmed.

    Returns the copy and the dotted paths that were trimmed (list items by index, e.g.
    ``tool_input.edits.0.new_string``); the root string itself is reported as ``""``.
    """
    paths: list[str] = []
    result = _walk(value, cap, "", paths)
    if len(paths) > MAX_TRIMMED_PATHS:
        paths = [*paths[:MAX_TRIMMED_PATHS], f"…{len(paths) - MAX_TRIMMED_PATHS} more"]
    return result, paths


def _walk(value: object, cap: int, path: str, paths: list[str]) -> object:
    if isinstance(value, str):
        if len(value) > cap:
            paths.append(path)
            return trim_string(value, cap)
        return value
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            name = str(key)
            if len(name) > cap:  # pathological keys are capped too, keeping the object valid
                name = trim_string(name, cap)
            out[name] = _walk(item, cap, f"{path}.{name}" if path else name, paths)
        return out
    if isinstance(value, list | tuple):
        return [_walk(item, cap, f"{path}.{i}" if path else str(i), paths) for i, item in enumerate(value)]
    return value
