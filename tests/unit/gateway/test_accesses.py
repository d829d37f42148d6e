"""What recall returned is recorded in batches; a failed append keeps it for the next flush."""

from __future__ import annotations

from collections.abc import Sequence

from codememory.events import Appended, Envelope, InMemoryEventLog, MemoriesRecalled, decode_envelope
from codememory.gateway.accesses import AccessRecorder


class FailsOnce(InMemoryEventLog):
    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]:
        if not self.failed:
            self.failed = True
            raise ConnectionError("LOG is gone")
        return await super().append(envelopes)


async def test_a_failed_append_keeps_the_accesses_for_the_next_flush() -> None:
    log = FailsOnce()
    recorder = AccessRecorder(log)
    recorder.note("t", ["a", "b"], session_id="s", purpose="context")
    recorder.note("u", ["c"])
    assert await recorder.flush() == 0 and recorder.pending == 3
    assert await recorder.flush() == 3 and recorder.pending == 0
    events = [decode_envelope(r.data) for r in log.records]
    by_tenant = {e.tenant: e.payload for e in events}
    assert isinstance(by_tenant["t"], MemoriesRecalled) and isinstance(by_tenant["u"], MemoriesRecalled)
    assert [(a.memory_id, a.purpose) for a in by_tenant["t"].accesses] == [("a", "context"), ("b", "context")]
    assert [a.memory_id for a in by_tenant["u"].accesses] == ["c"]  # one event per tenant
    assert await recorder.flush() == 0  # nothing noted since: nothing written
