"""Which memory types someone stated, which were observed, and which a cycle derived.

Recall (the later of two statements ranks first) and consolidation (what may merge and supersede) ask
the same question of a memory's type, so the answer lives here once.
"""

from __future__ import annotations

# a person said it: a prompt, a note, a decision ... (rules that can be restated, amended, superseded)
STATED_TYPES = ("prompt", "note", "decision", "preference", "fact", "rule", "convention")
# the agent's tools saw it happen
OBSERVED_TYPES = ("observation", "failure", "subagent")
# a consolidation cycle wrote it from other memories
DERIVED_TYPES = ("insight", "summary")
# git recorded it: a commit's message (what was changed and why, at that sha)
RECORDED_TYPES = ("commit",)

__all__ = ["DERIVED_TYPES", "OBSERVED_TYPES", "RECORDED_TYPES", "STATED_TYPES"]
