"""Normalization: every agent's hook payloads turned into codememory's domain events.

One module per agent knows that agent's hook names and payload shapes; ``common``, ``tools`` and
``summaries`` hold what they share; ``dispatch`` picks the agent. ``codememory.ingest.message.to_envelopes``
is the entry point that wraps the events in envelopes.
"""

from codememory.ingest.normalize.dispatch import NORMALIZERS, context_for, normalize_message

__all__ = ["NORMALIZERS", "context_for", "normalize_message"]
