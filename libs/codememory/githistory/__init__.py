"""Git history as codememory's temporal layer: commits as events, and files that change together.

Why it exists: an agent editing ``app.py`` should learn which other files usually change with it,
and when a symbol last changed and why. ``reader`` turns history into ``CommitRecorded`` events
(streamed, one git process), ``cochange`` learns co-change from those events.
"""

from codememory.githistory.cochange import CoChange
from codememory.githistory.errors import (
    GitCommandError,
    GitHistoryError,
    NotAGitRepositoryError,
    UnknownRevisionError,
)
from codememory.githistory.reader import head_commit, read_commit, read_history
from codememory.githistory.symbols import SymbolSpans, extractor_spans, python_spans

__all__ = [
    "CoChange",
    "GitCommandError",
    "GitHistoryError",
    "NotAGitRepositoryError",
    "SymbolSpans",
    "UnknownRevisionError",
    "extractor_spans",
    "head_commit",
    "python_spans",
    "read_commit",
    "read_history",
]
