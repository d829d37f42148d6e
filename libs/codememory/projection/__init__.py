"""Projections of LOG and the one runner that follows, waits on, and rebuilds them.

``port`` says what a projection is to the runner; ``fold`` applies records so one poison event never
stops its batch; ``live`` is the runner; ``code`` is the code projection (the memory projection lives
in ``codememory.memory``). No NATS and no gRPC here.
"""

from codememory.projection.code import CodeProjection
from codememory.projection.fold import TRANSIENT, DecodedRecord, Folded, decode_records, fold_records
from codememory.projection.live import LiveProjection, Rebuilt, in_thread, poll
from codememory.projection.port import Decoded, Poisoned, PoisonSink, Projection

__all__ = [
    "TRANSIENT",
    "CodeProjection",
    "Decoded",
    "DecodedRecord",
    "Folded",
    "LiveProjection",
    "PoisonSink",
    "Poisoned",
    "Projection",
    "Rebuilt",
    "decode_records",
    "fold_records",
    "in_thread",
    "poll",
]
