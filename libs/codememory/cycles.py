"""The reply to a consolidation request: what one cycle did.

Shared by the consolidate service, which runs the cycle and replies on ``cm.rpc.<tenant>.consolidate``,
and the gateway, which asks on behalf of an authenticated caller and returns it over gRPC.
"""

from __future__ import annotations

import msgspec


class CycleReport(msgspec.Struct, frozen=True, kw_only=True):
    cycle_id: str = ""
    up_to_seq: int = 0  # the LOG position the cycle saw
    last_seq: int = 0  # the last LOG sequence the cycle wrote
    merged: int = 0
    superseded: int = 0
    archived: int = 0
    decayed: int = 0
    insights: int = 0
    summaries: int = 0
    linked: int = 0
    without_vectors: int = 0  # memories the cycle could not compare yet (their vectors still coming)
    took_ms: float = 0.0
    error: str = ""  # set when the cycle could not run


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(CycleReport)


def encode_report(report: CycleReport) -> bytes:
    return _encoder.encode(report)


def decode_report(data: bytes) -> CycleReport:
    """Raises ``msgspec.DecodeError`` (a ``ValueError``) for anything but a report."""
    return _decoder.decode(data)
