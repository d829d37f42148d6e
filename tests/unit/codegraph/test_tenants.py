from __future__ import annotations

from datetime import UTC, datetime

import pytest

from codememory.codegraph import TenantGraphs, UnknownNodeError
from codememory.events import SymbolsExtracted, new_envelope


def extracted(path: str) -> SymbolsExtracted:
    return SymbolsExtracted(repo="r", path=path, content_hash="h", module=path.removesuffix(".py"))


def test_each_tenant_gets_its_own_graph_on_demand() -> None:
    graphs = TenantGraphs()
    at = datetime(2026, 11, 1, tzinfo=UTC)
    assert graphs.apply(new_envelope(extracted("a.py"), event_id="1", tenant="t1", occurred_at=at), 1)
    assert graphs.apply(new_envelope(extracted("b.py"), event_id="2", tenant="t2", occurred_at=at), 2)
    assert not graphs.apply(new_envelope(extracted("c.py"), event_id="3", tenant="t2", occurred_at=at), 2)
    assert len(graphs) == 2
    assert ("file", "r", "a.py") in graphs.existing("t1").index
    assert ("file", "r", "a.py") not in graphs.existing("t2").index
    with pytest.raises(UnknownNodeError):
        graphs.existing("t3")
