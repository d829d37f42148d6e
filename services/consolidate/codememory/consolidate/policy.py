"""The thresholds and word lists a consolidation cycle decides by, in one typed object.

Every rule of the cycle is general: similarities between memory vectors, the overlap of the words
that name a memory's subject, and short lists of cue words that a change or a correction is
expressed with. Nothing keys on a data set's ids or wording; every value here can be set from the
environment (``CODEMEMORY_CONSOLIDATE_<KEY>``, see ``settings``) and is documented in the README.
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory.memory.cues import ADDRESS_CUES, CHANGE_CUES, NOT_CHANGE_CUES
from codememory.memory.failurelines import ERROR_CUES
from codememory.memory.kinds import OBSERVED_TYPES, STATED_TYPES
from codememory.memory.statements import PARALLEL_RATIO

# how a user corrects the agent ("no,", "don't", "that's wrong")
CORRECTION_CUES = (
    "no,",
    "no.",
    "don't",
    "do not",
    "dont",
    "never",
    "wrong",
    "not what",
    "stop",
    "revert",
    "undo",
    "instead",
    "actually",
    "that's not",
    "you should",
    "please don't",
)
# how a rule reads (a convention is a restated rule, not a restated task such as "fix the type errors")
CONVENTION_CUES = (
    "always",
    "never",
    "every",
    "only",
    "don't",
    "do not",
    "dont",
    "use",
    "prefer",
    "stick to",
    "must",
    "should",
    "keep",
    "instead",
    "reminder",
    "remember",
    "rule",
    "convention",
    "follow",
    "go through",
    "no",
    "not",
)


@dataclass(frozen=True, kw_only=True)
class ConsolidationPolicy:
    duplicate_similarity: float = 0.7  # cosine at or above which two memories saying the same merge
    cross_kind_similarity: float = 0.85  # the same between a stated memory and an observed one
    supersede_similarity: float = (
        0.45  # cosine at or above which a later memory stating a new value supersedes
    )
    # the same for a later memory that says it changes something (a change cue): a cue says that
    # something changes, not what, so alone it needs the likeness of a new value ("bump uvicorn to the
    # latest patch" changes no earlier request about another file, at cosine 0.3-0.4)
    cue_similarity: float = 0.45
    # the same for a later memory that names what the earlier one said: a value it replaces with another
    # ("bump the line length to 110, at 88 ..."), or ``cue_shared_words`` of its subject words beside a
    # change cue ("drop Sidekiq, ... Solid Queue" after "put the mailers on Sidekiq, redis is up")
    named_similarity: float = 0.3
    cue_shared_words: int = 2
    parallel_ratio: float = PARALLEL_RATIO  # alike token sequences: one sentence of another thing
    subject_overlap: float = 0.5  # share of the shorter memory's subject words the two must share
    # the earlier memory must be among the later's this many nearest earlier ones; past the nearest,
    # only one whose value the later names and replaces (``statements.replaced_value``)
    supersede_rank: int = 2
    link_similarity: float = 0.6  # cosine at or above which two memories are linked as neighbours
    links_per_memory: int = 5
    decay_half_life_days: float = 30.0  # observations: importance halves per this many days unused
    stated_half_life_days: float = 180.0  # what someone stated fades far slower
    decay_floor: float = 0.3  # session context's min_importance: age alone never drops a memory from it
    decay_step: float = 0.05  # an importance change smaller than this is not worth an event
    observation_ttl_days: float = 30.0  # session observations nobody recalled are archived after this
    unused_read_ttl_days: float = 3.0  # reads and searches nobody recalled go first
    session_idle_hours: float = 12.0  # a session with no event for this long counts as finished
    summary_items: int = 6  # prompts, files and commands a session summary names at most
    change_cues: tuple[str, ...] = CHANGE_CUES
    not_change_cues: tuple[str, ...] = NOT_CHANGE_CUES
    correction_cues: tuple[str, ...] = CORRECTION_CUES
    error_cues: tuple[str, ...] = ERROR_CUES  # the line of a failure a fix lesson quotes (``failurelines``)
    convention_cues: tuple[str, ...] = CONVENTION_CUES
    # how a rule may be addressed to the listener first ("reminder: "): left out of a convention's title
    address_cues: tuple[str, ...] = ADDRESS_CUES
    stated_types: tuple[str, ...] = STATED_TYPES
    # what may merge: statements and observations; a turn of conversation (type "dialog") means what it
    # means in its place in the conversation, so it is never folded into another
    merge_types: tuple[str, ...] = STATED_TYPES + OBSERVED_TYPES

    def __post_init__(self) -> None:
        names = ("duplicate_similarity", "supersede_similarity", "cue_similarity", "named_similarity")
        for name in (*names, "subject_overlap", "cross_kind_similarity", "link_similarity", "parallel_ratio"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if (
            max(self.supersede_similarity, self.cue_similarity, self.named_similarity)
            > self.duplicate_similarity
        ):
            raise ValueError(
                "supersede_similarity, cue_similarity and named_similarity must not exceed "
                "duplicate_similarity"
            )
        if self.cue_shared_words < 1:
            raise ValueError("cue_shared_words must be 1 or more")
        if min(self.decay_half_life_days, self.stated_half_life_days, self.session_idle_hours) <= 0:
            raise ValueError("half lives and the idle time must be positive")
