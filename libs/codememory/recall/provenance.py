"""Where an injected memory came from, whether it is data, and whether it tries to address the agent.

A memory system for coding agents is a prompt-injection channel by nature: a web page an agent
fetched, or a command's output, becomes a memory that is injected into a later session. So every
line of session context names its source (the user's prompt, a decision, a tool's output, a web
page, ...) and day; what came from tools, the web or subagents is quoted as data; and text that tries
to address the agent is flagged and ranked down:

- phrases that give the model orders ("ignore previous instructions", "you are now", "new system
  prompt", "do not tell the user");
- tool-call and role look-alikes (``<tool_call>``, ``<function_calls>``, ``"name": ..., "arguments"``,
  ``system:``/``assistant:`` at a line start, ``<|im_start|>``);
- hidden Unicode (zero-width characters, bidirectional controls, tag characters), which is also
  removed from the injected text, so what the agent reads is what a person reading it sees.

``format_line`` is a memory as session context shows it: source, day (and the day it was superseded),
the text on one line (a tool's memory with what it says first, nothing said twice: ``toollines``),
quoted when it is data, marked when flagged.

Stdlib only and linear: each pattern is a fixed alternation without nested quantifiers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime

from codememory.recall.toollines import shown_text

# a memory's type as the source an agent should weigh it by
_SOURCES = {
    "prompt": "user prompt",
    "observation": "tool output",
    "failure": "tool error",
    "subagent": "subagent result",
    "summary": "session summary",
    "insight": "derived insight",
    "commit": "git commit",
}
_DATA_SOURCES = frozenset({"tool output", "tool error", "web page", "subagent result"})
_WEB = ("Fetched ", "Searched the web for ")  # ingest's summaries of web tools (normalize/summaries.py)

HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_ORDERS = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions?|prompts?|rules?|messages?)"
    r"|\byou\s+are\s+now\b|\bnew\s+(?:system\s+)?instructions?\s*:|\b(?:new\s+)?system\s+prompt\s*:"
    r"|\bdo\s+not\s+(?:tell|inform|mention\s+(?:this\s+)?to)\s+the\s+user\b"
    r"|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|jailbroken|different)\b",
    re.IGNORECASE,
)
_TOOL_CALLS = re.compile(
    r"</?(?:tool_call|tool_use|function_calls?|invoke|antml:[a-z_]+|system|assistant)\b"
    r"|<\|im_(?:start|end)\|>|\"(?:name|tool)\"\s*:\s*\"[^\"]{1,64}\"\s*,\s*\"(?:arguments|parameters|input)\"\s*:"
    r"|(?m:^\s*(?:system|assistant|developer)\s*:)",
    re.IGNORECASE,
)


def source_of(payload: Mapping[str, object]) -> str:
    """``user prompt``, ``tool output``, ``web page``, ``decision``, ...: the memory's type otherwise."""
    kind = str(payload.get("type") or "note")
    source = _SOURCES.get(kind, kind)
    if source == "tool output" and str(payload.get("text", "")).startswith(_WEB):
        return "web page"
    return source


def is_data(source: str) -> bool:
    """Content the agent should read as data, never as instructions: tools, the web, subagents."""
    return source in _DATA_SOURCES


def flags(text: str) -> tuple[str, ...]:
    """Why ``text`` looks like it addresses the agent (empty: it does not)."""
    found = []
    if _ORDERS.search(text):
        found.append("addresses the agent")
    if _TOOL_CALLS.search(text):
        found.append("tool-call look-alike")
    if HIDDEN.search(text):
        found.append("hidden unicode")
    return tuple(found)


def flags_of(payload: Mapping[str, object], shown: str | None = None) -> tuple[str, ...]:
    """A memory's flags, read in its stored text and in the text its line shows (``toollines``;
    ``shown`` when the caller has it): a decoded argument or two lines joined by a line left out must
    not hide what the text tries."""
    raw = str(payload.get("text", ""))
    shown = shown_text(payload) if shown is None else shown
    return tuple(dict.fromkeys((*flags(raw), *flags(shown)))) if shown != raw else flags(raw)


def visible(text: str) -> str:
    """``text`` without hidden characters."""
    return HIDDEN.sub("", text)


def _day(value: object) -> str:
    return datetime.fromtimestamp(float(value) if isinstance(value, int | float) else 0.0, UTC).strftime(
        "%Y-%m-%d"
    )


def format_line(payload: Mapping[str, object]) -> str:
    """One memory as a context line: its source, its day, its text on one line (tools' and the web's
    quoted as data). A superseded memory says so, with the day it was replaced: it is history, not
    the current rule. Text that addresses the agent is marked; hidden characters are dropped."""
    when = _day(payload.get("created_at"))
    if payload.get("state") == "superseded":
        when += f", superseded {_day(payload.get('superseded_at'))}"
    shown = shown_text(payload)
    text = " ".join(visible(shown).split())
    source = source_of(payload)
    if is_data(source):
        text = f"“{text}”"
    flagged = flags_of(payload, shown)
    mark = f" [flagged: {', '.join(flagged)}]" if flagged else ""
    return f"- [{source}, {when}]{mark} {text}"
