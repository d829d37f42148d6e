from __future__ import annotations

from codememory.events import FileChange
from codememory.graph import CodeGraph
from conftest import DAY, T0, Feed, shop


def test_a_graph_rebuilt_by_replay_has_the_same_digest() -> None:
    live = shop(Feed())
    live.commit("c1", T0 + DAY, [FileChange(path="pkg/api.py"), FileChange(path="pkg/models.py")])
    live.memory("m1", "pkg.api.create and pkg/models.py", T0 + 2 * DAY)
    live.forget("m1")
    live.memory("m2", "Model.validate", T0 + 2 * DAY)
    rebuilt = CodeGraph("t1")
    for envelope, seq in live.log:
        rebuilt.apply(envelope, seq)
    assert rebuilt.digest() == live.graph.digest()
    for envelope, seq in live.log:  # replaying again on top changes nothing
        rebuilt.apply(envelope, seq)
    assert rebuilt.digest() == live.graph.digest()


def test_any_change_changes_the_digest() -> None:
    a, b = shop(Feed()), shop(Feed())
    assert a.graph.digest() == b.graph.digest()
    b.memory("m1", "pkg.api.create", T0)
    assert a.graph.digest() != b.graph.digest()
    c = shop(Feed())
    c.commit("c1", T0, [FileChange(path="pkg/api.py"), FileChange(path="pkg/models.py")])
    d = shop(Feed())
    d.commit("c1", T0, [FileChange(path="pkg/api.py"), FileChange(path="pkg/models.py")])
    assert c.graph.digest() == d.graph.digest()
    d.commit("c2", T0, [FileChange(path="pkg/api.py"), FileChange(path="pkg/models.py")])  # co-change 2
    assert c.graph.digest() != d.graph.digest()
