"""How session context chooses among recalled memories: each part a general rule.

At session start there is rarely a question, and a month of reads, searches, edits and passing test runs
outnumbers the few decisions and fixes a new session needs (``context``). The parts:

- ``stated_types``: a second recall of the same query restricted to what someone stated (prompts,
  notes, decisions, summaries, subagent results, insights), merged in, so that observations cannot
  push every stated memory out of the candidates;
- ``type_weights``: a multiplier on the rank score per memory type, favouring what was stated over
  what was merely observed (observations 0.3, failures 0.6, others 1.0);
- ``min_importance``: memories below it (reads and searches are drafted at 0.2) are left out;
- ``min_chars``: memories shorter than this ("thanks", "go ahead") say nothing to a new session;
- ``max_line_tokens``: one memory's line is cut to this, so a long file excerpt cannot eat the budget;
- ``dedupe``: a line that differs from one already packed only in its numbers (the same test run or
  status check again) is left out;
- ``per_session``: at most this many memories from one earlier session before the others' turn (off
  by default: it measured worse);
- ``candidates``: how many recalled memories packing chooses from, per recall;
- ``summaries``: at most this many session summaries (1): a first cycle summarises every finished
  session, and a summary repeats its session's prompts in a long line, so a day of them can fill a
  500-token budget before any decision;
- ``one_line_per_insight``: an insight that repeats a memory it was drawn from (``repeats``: the
  lesson's words hold the memory's, or the other way round) says one thing with it, so whichever
  ranks first is packed and the other left out: a convention the user restated came back twice,
  as the rule and as the lesson "<the rule> Situation: stated in 2 sessions";
- ``quoted``: a memory whose whole text a packed (or given) summary's line holds as one of its
  items is left out (``repeats``): a summary quotes its session's prompts, which then came again
  as lines of their own;
- ``question_weight``: a multiplier on the rank of a prompt or note that asks something ("how many
  retries does the API do?"): it says what someone wanted to know, not what is known;
- ``flagged_weight``: a multiplier on the rank of a memory whose text tries to address the agent
  (``provenance.flags_of``: orders to the model, tool-call look-alikes, hidden Unicode), which is also
  marked ``[flagged: ...]`` in its line.

``ContextPolicy.legacy()``, kept for comparison, packs as before these rules (greedy, whole lines).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# tuned on benchmarks/bench_context.py (synthetic history, seed 7); see RESULTS.md
_DEFAULT_TYPE_WEIGHTS: Mapping[str, float] = MappingProxyType({"observation": 0.3, "failure": 0.6})
_STATED_TYPES = ("prompt", "note", "decision", "summary", "subagent", "insight")
ASKED_BY = ("prompt", "note")  # what ``question_weight`` weighs (a summary quoting a question asks nothing)


@dataclass(frozen=True, kw_only=True)
class ContextPolicy:
    """How session context chooses among recalled memories (see the module docstring)."""

    candidates: int = 100
    min_importance: float = 0.3
    type_weights: Mapping[str, float] = field(default_factory=lambda: _DEFAULT_TYPE_WEIGHTS)
    max_line_tokens: int = 60
    per_session: int = 0
    dedupe: bool = True
    min_chars: int = 20
    stated_types: tuple[str, ...] = _STATED_TYPES
    flagged_weight: float = 0.2  # rank multiplier of text that tries to address the agent
    question_weight: float = 0.5  # rank multiplier of a memory that asks something
    summaries: int = 1  # session summaries packed at most (the best ranked)
    one_line_per_insight: bool = True  # an insight or a memory it was drawn from, not both
    quoted: bool = True  # a memory a packed summary's line quotes whole (its prompts) is left out

    def __post_init__(self) -> None:
        if not 1 <= self.candidates <= 500:
            raise ValueError("candidates must be between 1 and 500")
        counts = (self.max_line_tokens, self.per_session, self.min_chars, self.summaries)
        if min(counts) < 0:
            raise ValueError("max_line_tokens, per_session, min_chars and summaries must be >= 0")
        weights = (*self.type_weights.values(), self.question_weight, self.flagged_weight)
        if any(weight < 0 for weight in weights):
            raise ValueError("type weights, question_weight and flagged_weight must be >= 0")

    @classmethod
    def legacy(cls) -> ContextPolicy:
        """Greedy by rank over 50 candidates, whole lines, no filters: the packing before policies."""
        return cls(
            candidates=50,
            min_importance=0.0,
            type_weights={},
            max_line_tokens=0,
            per_session=0,
            dedupe=False,
            min_chars=0,
            stated_types=(),
            flagged_weight=1.0,
            question_weight=1.0,
            summaries=500,
            one_line_per_insight=False,
            quoted=False,
        )
