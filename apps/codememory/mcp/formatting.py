"""Compact text for agents: one line per memory, symbol or commit, within a token budget.

An agent reads tool results into its own context window, so every result is plain lines (no JSON
noise), carries the ids it can act on (a memory's full id for ``refine``/``forget``, a symbol's
qualified name and ``path:line`` for the code tools), and stops at the call's token budget with a line
that says how much was left out and how to see it. Tokens are estimated as recall's session context
estimates them (four characters each), so the two budgets mean the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from codememory.clip import clip
from codememory.recall.context import CHARS_PER_TOKEN, estimate_tokens
from codememory.recall.provenance import visible
from codememory.recall.toollines import shown_text
from codememory.v1 import code_pb2 as cpb
from codememory.v1 import memory_pb2 as pb

_MAX_TEXT = 600  # characters of one memory's text; a longer one is cut with an ellipsis


class Page:
    """Lines added in order until the next one would break the budget; the rest are counted."""

    def __init__(self, budget_tokens: int) -> None:
        self.budget = budget_tokens
        self.lines: list[str] = []
        self.used = 0
        self.omitted = 0

    def add(self, line: str) -> bool:
        """Add ``line`` if it fits (a first line is cut to fit instead); False once the page is full."""
        cost = estimate_tokens(line) + 1
        if self.omitted or self.used + cost > self.budget:
            if not self.lines:
                line = one_line(line, self.budget * CHARS_PER_TOKEN)
                cost = self.budget
            else:
                self.omitted += 1
                return False
        self.lines.append(line)
        self.used += cost
        return True

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.add(line)

    def render(self) -> str:
        text = "\n".join(self.lines)
        if self.omitted:
            text += (
                f"\n… {self.omitted} more line(s) left out to stay within {self.budget} tokens"
                " (pass a larger budget_tokens, or narrow the query)"
            )
        return text


def one_line(text: str, limit: int = _MAX_TEXT) -> str:
    """``text`` with its whitespace collapsed, cut to ``limit`` characters."""
    return clip(" ".join(text.split()), limit)


def day(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d") if seconds > 0 else "?"


def memory_line(memory: pb.Memory, score: float | None = None, suspect: str = "") -> str:
    """``- <id> [type, day, repo, 0.812] text``: the id first, so it is easy to copy; a tool's memory
    says its cause first and no argument twice (``toollines``)."""
    facts = [memory.type or "note", day(memory.created_at)]
    if memory.scope.repo:
        facts.append(memory.scope.repo)
    facts += _state_facts(memory)
    if score is not None:
        facts.append(f"{score:.3f}")
    flag = f" (SUSPECT: {one_line(suspect, 160)})" if suspect else ""
    text = visible(shown_text({"type": memory.type, "text": memory.text}))  # as session context shows it
    return f"- {memory.id} [{', '.join(facts)}]{flag} {one_line(text)}"


def _state_facts(memory: pb.Memory) -> list[str]:
    """What consolidation says of a memory, with the ids an agent can follow: "superseded 2026-12-07
    by <id>", "merged into <id>", "stated 3x" (a canonical memory and its restatements); an active
    memory stated once says nothing."""
    facts = []
    if memory.state == "superseded":
        when = f" {day(memory.superseded_at)}" if memory.superseded_at > 0 else ""
        facts.append(f"superseded{when} by {memory.superseded_by}" if memory.superseded_by else "superseded")
    elif memory.state == "merged" and memory.merged_into:
        facts.append(f"merged into {memory.merged_into}")
    elif memory.state and memory.state != "active":
        facts.append(memory.state)
    if memory.restated > 1:
        facts.append(f"stated {memory.restated}x")
    return facts


def node_line(node: cpb.GraphNode) -> str:
    """A symbol as ``kind qualname path:start-end signature``, a file as ``file path``, and so on."""
    via = f" (via {node.via}{f', depth {node.depth}' if node.depth > 1 else ''})" if node.via else ""
    score = f" score={node.score:.3f}" if node.score else ""
    if node.kind == "symbol":
        where = f"{node.path}:{node.start_line}-{node.end_line}"
        signature = f"  {one_line(node.signature, 160)}" if node.signature else ""
        return f"- {node.symbol_kind or 'symbol'} {node.qualname}  {where}{signature}{via}{score}"
    if node.kind == "file":
        return f"- file {node.path}{via}{score}"
    return f"- {node.kind} {node.name or node.key}{via}{score}"


def commit_line(commit: cpb.CommitInfo, *, max_names: int = 8) -> str:
    """``- <sha12> day author: message [files: ...; symbols: ...]``."""
    parts = []
    if commit.files:
        parts.append("files: " + names(commit.files, max_names))
    if commit.symbols:
        parts.append("symbols: " + names(commit.symbols, max_names))
    detail = f" [{'; '.join(parts)}]" if parts else ""
    author = f" {commit.author}" if commit.author else ""
    return f"- {commit.sha[:12]} {day(commit.authored_at)}{author}: {one_line(commit.message, 200)}{detail}"


def code_hit_line(hit: cpb.CodeHit) -> str:
    doc = f" — {one_line(hit.docstring, 160)}" if hit.docstring else ""
    where = f"{hit.path}:{hit.start_line}-{hit.end_line}"
    signature = f"  {one_line(hit.signature, 160)}" if hit.signature.strip() else ""
    return f"- {hit.score:.3f} {hit.kind} {hit.qualname}  {where}{signature}{doc}"


def count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def names(values: Iterable[str], limit: int) -> str:
    """At most ``limit`` names, comma-separated, and how many more there were."""
    items = list(values)
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


__all__ = [
    "Page",
    "code_hit_line",
    "commit_line",
    "count",
    "day",
    "memory_line",
    "names",
    "node_line",
    "one_line",
]
