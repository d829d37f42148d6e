"""``TenantGraphs``: one ``CodeGraph`` per tenant, created on first use, fed envelopes from LOG.

Why: tenants never share code or memories, so each has its own graph (and lock); the holder routes an
envelope to its tenant's graph. The holder's own lock only guards the dict of graphs.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from codememory.codegraph.errors import UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.events import Envelope

__all__ = ["TenantGraphs"]


class TenantGraphs:
    def __init__(self) -> None:
        self._graphs: dict[str, CodeGraph] = {}
        self._lock = threading.Lock()

    def graph(self, tenant: str) -> CodeGraph:
        """The tenant's graph, created empty on first use."""
        with self._lock:
            found = self._graphs.get(tenant)
            if found is None:
                found = self._graphs[tenant] = CodeGraph(tenant)
            return found

    def existing(self, tenant: str) -> CodeGraph:
        with self._lock:
            try:
                return self._graphs[tenant]
            except KeyError:
                raise UnknownNodeError(f"tenant {tenant}") from None

    def apply(self, envelope: Envelope, seq: int) -> bool:
        """Fold ``envelope`` into its tenant's graph; False when that graph had already applied ``seq``."""
        return self.graph(envelope.tenant).apply(envelope, seq)

    def __iter__(self) -> Iterator[CodeGraph]:
        with self._lock:
            return iter(list(self._graphs.values()))

    def __len__(self) -> int:
        return len(self._graphs)
