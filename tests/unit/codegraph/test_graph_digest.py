from __future__ import annotations

from graphfeed import DAY, T0, Feed, shop

from codememory.codegraph import CodeGraph
from codememory.events import FileChange


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


def test_a_replay_in_another_process_has_the_same_digest() -> None:
    """Set and dict orders differ between processes (hash seeds); the fold must not depend on them."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from graphfeed import Feed, shop, sym, calls, imp;"
        "f = Feed(); f.file('z.py', 'z', [sym('z.run')], imports=[imp('late', 'a'), imp('late', 'b')],"
        " refs=[calls('z.run', 'a'), calls('z.run', 'b'), calls('z.run', 'x.some_method')]);"
        "f.file('c.py', 'c', [sym('c.C', 'class'), sym('c.C.go', 'method', 'c.C')],"
        " imports=[imp('late', 'Base')],"
        " refs=[calls('c.C', 'Base', 'inherits'), calls('c.C.go', 'self.mmm'), calls('c.C.go', 'self.zzz')]);"
        "shop(f); f.file('late.py', 'late', [sym('late.a'), sym('late.b'), sym('late.some_method'),"
        " sym('late.Base', 'class'), sym('late.Base.mmm', 'method', 'late.Base'),"
        " sym('late.Base.zzz', 'method', 'late.Base')]);"
        "from graphfeed import edges; assert ('c.C.go', 'late.Base.mmm') in edges(f.graph, 'calls');"
        "print(f.graph.digest())"
    )
    here = str(Path(__file__).parent)
    digests = {
        subprocess.run(
            [sys.executable, "-c", script, here],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1 and len(next(iter(digests)).strip()) == 64
