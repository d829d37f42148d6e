"""Changed ranges -> touched symbols, and the two span providers."""

from __future__ import annotations

from codememory.githistory import extractor_spans, python_spans
from codememory.githistory.symbols import supports, touched

SOURCE = b"import x\n\n@deco\nclass A:\n    def m(self):\n        pass\n\n\nasync def f():\n    pass\n"


def test_touched_uses_inclusive_overlap_and_keeps_span_order() -> None:
    spans = [("A", 3, 6), ("A.m", 5, 6), ("f", 9, 10)]
    assert touched(spans, [(6, 6)]) == ("A", "A.m")
    assert touched(spans, [(1, 2)]) == ()
    assert touched(spans, [(10, 12), (3, 3)]) == ("A", "f")


def test_python_spans_include_decorators_and_nesting() -> None:
    assert list(python_spans("m.py", SOURCE)) == [("A", 3, 6), ("A.m", 5, 6), ("f", 9, 10)]
    assert list(python_spans("m.py", b"def broken(:\n")) == []
    assert list(python_spans("m.rs", SOURCE)) == []
    assert supports(python_spans, "a.py") and not supports(python_spans, "a.md")


def test_extractor_spans_skip_the_module_and_unsupported_files() -> None:
    spans = extractor_spans("demo")
    assert [q for q, _, _ in spans("pkg/m.py", SOURCE)] == ["pkg.m.A", "pkg.m.A.m", "pkg.m.f"]
    assert not supports(spans, "README.md")
    assert list(spans("README.md", b"# hi\n")) == []


def test_providers_without_supports_want_everything() -> None:
    assert supports(lambda path, content: (), "anything.bin")
