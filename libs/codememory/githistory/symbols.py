"""Which symbols a commit touched: changed line ranges intersected with symbol spans.

Why it exists: "this function changed in commit X" is what links history to code, but the reader
must not depend on one parser. A ``SymbolSpans`` callable maps (path, content) to
``(qualname, start_line, end_line)`` spans of the NEW version of a file; the reader intersects them
with the commit's new-side hunk ranges. Two providers live here: ``extractor_spans`` adapts
``codememory.code.extract_file`` (tree-sitter, every language it supports), and ``python_spans``
(standard-library ``ast``, Python only) is a dependency-free stand-in for tests and benchmarks.

A provider may expose ``supports(path) -> bool``; the reader then skips reading the content of
files it cannot parse, which keeps symbol attribution cheap on repositories full of docs and data.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from codememory.code import extract_file, language_of
from codememory.code.roots import SourceRoots

SymbolSpans = Callable[[str, bytes], Sequence[tuple[str, int, int]]]


def touched(spans: Sequence[tuple[str, int, int]], ranges: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """Qualnames whose span intersects any changed range, in span order, each once."""
    hit: dict[str, None] = {}
    for qualname, start, end in spans:
        if any(lo <= end and start <= hi for lo, hi in ranges):
            hit.setdefault(qualname, None)
    return tuple(hit)


def supports(provider: SymbolSpans, path: str) -> bool:
    """Whether ``provider`` wants ``path`` (providers without ``supports`` want every file)."""
    check = getattr(provider, "supports", None)
    return bool(check(path)) if callable(check) else True


class PythonSpans:
    """Spans of Python classes, functions and methods via ``ast`` (qualnames like ``A.method``)."""

    def supports(self, path: str) -> bool:
        return path.endswith((".py", ".pyi"))

    def __call__(self, path: str, content: bytes) -> Sequence[tuple[str, int, int]]:
        if not self.supports(path):
            return ()
        try:
            tree = ast.parse(content)
        except (SyntaxError, ValueError):
            return ()
        spans: list[tuple[str, int, int]] = []
        _walk(tree.body, "", spans)
        return spans


def _walk(body: list[ast.stmt], prefix: str, spans: list[tuple[str, int, int]]) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{node.name}"
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((name, start, node.end_lineno or node.lineno))
            _walk(node.body, f"{name}.", spans)


python_spans: SymbolSpans = PythonSpans()


class ExtractorSpans:
    """Adapter over ``codememory.code.extract_file`` (tree-sitter), for the languages it supports."""

    def __init__(self, repo: str, roots: SourceRoots | None = None) -> None:
        self._repo, self._roots = repo, roots

    def supports(self, path: str) -> bool:
        return language_of(path) != ""

    def __call__(self, path: str, content: bytes) -> Sequence[tuple[str, int, int]]:
        if not self.supports(path):
            return ()
        try:
            event = extract_file(self._repo, path, content, self._roots)
        except Exception:  # one unparsable file must not stop a history backfill
            return ()
        # The module symbol spans the whole file; the FileChange path already says the file changed.
        return [(s.qualname, s.start_line, s.end_line) for s in event.symbols if s.kind != "module"]


def extractor_spans(repo: str, roots: SourceRoots | None = None) -> SymbolSpans:
    """The tree-sitter provider (``codememory.code``): the one the services use; ``roots`` name the
    modules as the indexer named them (``codememory.code.discovery``)."""
    return ExtractorSpans(repo, roots)
