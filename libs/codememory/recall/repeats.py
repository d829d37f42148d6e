"""What session context has already said: an insight and a memory it repeats, a memory a line quotes.

A convention the user restated becomes an insight whose lesson is the rule itself ("we use pytest
with -x ... Situation: stated in 2 sessions"), drawn from the memories that state it; a session's
context then said the rule twice, as the memory and as the lesson. Other insights are drawn from
memories they do not repeat: "``pytest tests/test_cart.py`` failed, then passed after changing
cart.py" is drawn from the failure and the fix, whose words (the cause, the change) it leaves out, and
leaving those memories out lost known facts (``bench_context.py``: 41 against 44 of 47 at 4,000
tokens when every memory an insight was drawn from was left out). So the two share one line only when
one's words hold the other's: the lesson (the insight's first line) and the memory's text, in lower
case with spaces collapsed. A memory stands for the restatements merged into it (``stands_for``).

A summary's line also quotes other memories whole: it names what was asked ("asked: the payments
tests fail since yesterday, can you fix them? | ..."), and the prompts it names came next as lines of
their own. ``quoted`` tells a memory whose text (its words, as above) a packed summary's line holds
as one of its items (after "asked: " or " | ", up to the end of a word: "use floats for money" is
not quoted by "asked: never use floats for money"); what the line was cut to counts, so a prompt
past the cut still gets its own line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from codememory.recall.restated import evidence_of, stands_for, statement


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _holds(one: str, other: str) -> bool:
    """Whether the shorter of two texts is in the longer one."""
    short, long = sorted((one, other), key=len)
    return bool(short) and short in long


class SaidOnce:
    """The memories and insights given so far, to tell whether the next one repeats one of them."""

    def __init__(self) -> None:
        self._memories: dict[str, str] = {}  # a memory's id, and its sources', to its words
        self._lessons: dict[str, list[str]] = {}  # a memory's id to the lessons drawn from it
        self._lines: list[str] = []  # the packed summaries' lines, as words

    def repeats(self, memory_id: str, payload: Mapping[str, object]) -> bool:
        if payload.get("type") == "insight":
            lesson = _words(statement(payload))
            return any(_holds(lesson, self._memories.get(e, "")) for e in evidence_of(payload))
        text = _words(str(payload.get("text", "")))
        covers = stands_for(memory_id, payload)
        return any(_holds(lesson, text) for c in covers for lesson in self._lessons.get(c, ()))

    def add(self, memory_id: str, payload: Mapping[str, object]) -> None:
        if payload.get("type") == "insight":
            lesson = _words(statement(payload))
            for e in evidence_of(payload):
                self._lessons.setdefault(e, []).append(lesson)
            return
        text = _words(str(payload.get("text", "")))
        for c in stands_for(memory_id, payload):
            self._memories[c] = text

    def quoted(self, payload: Mapping[str, object]) -> bool:
        """Whether a packed summary's line already holds this memory's whole text as an item."""
        text = _words(str(payload.get("text", "")))
        if not text or not self._lines:
            return False
        item = re.compile(rf"(?:^|: |\| ){re.escape(text)}(?!\w)")
        return any(item.search(line) for line in self._lines)

    def add_line(self, payload: Mapping[str, object], line: str) -> None:
        """A packed (or given) line: a summary's is kept, what it quotes is said."""
        if payload.get("type") == "summary":
            self._lines.append(_words(line))


__all__ = ["SaidOnce"]
