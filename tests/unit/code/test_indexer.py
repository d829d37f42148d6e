"""Indexing a repository: streamed in walk order, unchanged files skipped, deletions reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from codememory.code.indexer import CHUNK_FILES, index_repository, start_workers
from codememory.code.summary import IndexProgress, IndexSummary
from codememory.code.walk import walk_repository
from codememory.events import FileDeleted, SymbolsExtracted


def _repo(root: Path, files: int) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("from .m0 import f0\n")
    for i in range(files):
        (root / "pkg" / f"m{i}.py").write_text(f"def f{i}():\n    return f{max(i - 1, 0)}()\n")
    (root / "README.md").write_text("# readme\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0")


def _run(
    root: Path, known: dict[str, str], workers: int
) -> tuple[list[SymbolsExtracted | FileDeleted], IndexSummary]:
    summary = IndexSummary()
    events = list(index_repository(root, "acme/app", known, workers=workers, summary=summary))
    return events, summary


@pytest.mark.parametrize("workers", [1, 2])
def test_first_index_streams_every_file_in_walk_order(tmp_path: Path, workers: int) -> None:
    _repo(tmp_path, CHUNK_FILES * 4 + 5)  # enough chunks to start a pool with two workers
    events, summary = _run(tmp_path, {}, workers)
    paths = [e.path for e in events]
    assert paths == [f.path for f in walk_repository(tmp_path)]
    assert len(paths) == CHUNK_FILES * 4 + 8
    assert all(isinstance(e, SymbolsExtracted) and e.repo == "acme/app" for e in events)
    assert summary.parsed_by_language == {"python": CHUNK_FILES * 4 + 6}
    assert summary.degraded_by_language == {"other": 2}
    assert summary.symbols == 2 * (CHUNK_FILES * 4 + 5) + 1
    assert summary.files_seen == CHUNK_FILES * 4 + 8
    assert summary.worker_cpu_seconds > 0
    assert (summary.worker_processes > 0) == (workers == 2)
    assert "2 files kept as file nodes only" in summary.describe()


def test_parallel_and_in_process_results_are_identical(tmp_path: Path) -> None:
    _repo(tmp_path, CHUNK_FILES * 5)
    assert _run(tmp_path, {}, 1)[0] == _run(tmp_path, {}, 2)[0]


def test_workers_started_ahead_give_the_same_results(tmp_path: Path) -> None:
    from multiprocessing import forkserver

    _repo(tmp_path, CHUNK_FILES * 5)
    start_workers()
    start_workers()  # twice: the one forkserver
    assert forkserver._forkserver._forkserver_pid is not None
    parallel, summary = _run(tmp_path, {}, 2)
    assert summary.worker_processes > 0
    assert parallel == _run(tmp_path, {}, 1)[0]


def test_reindex_skips_known_hashes_and_reports_deletions(tmp_path: Path) -> None:
    _repo(tmp_path, 4)
    first, _ = _run(tmp_path, {}, 1)
    known = {e.path: e.content_hash for e in first if isinstance(e, SymbolsExtracted)}
    (tmp_path / "pkg" / "m1.py").write_text("def changed():\n    pass\n")
    (tmp_path / "pkg" / "m2.py").unlink()
    (tmp_path / "pkg" / "new.py").write_text("class New: pass\n")
    known["gone/elsewhere.py"] = "0" * 32
    progress: list[IndexProgress] = []
    summary = IndexSummary()
    events = list(
        index_repository(tmp_path, "acme/app", known, workers=1, progress=progress.append, summary=summary)
    )
    assert [(type(e).__name__, e.path) for e in events] == [
        ("SymbolsExtracted", "pkg/m1.py"),
        ("SymbolsExtracted", "pkg/new.py"),
        ("FileDeleted", "gone/elsewhere.py"),
        ("FileDeleted", "pkg/m2.py"),
    ]
    changed = events[0]
    assert isinstance(changed, SymbolsExtracted)
    assert [s.qualname for s in changed.symbols] == ["pkg.m1", "pkg.m1.changed"]
    assert (summary.skipped_unchanged, summary.deleted, summary.files_seen) == (5, 2, 7)
    assert progress[-1].done and progress[-1].deleted == 2 and progress[-1].skipped_unchanged == 5
    assert progress[-1].last_path == "pkg/new.py"
    totals = summary.as_dict()
    assert (totals["parsed"], totals["deleted"], totals["parsed_by_language"]) == (2, 2, {"python": 2})
    assert not any(p.done for p in progress[:-1])


def test_gitignored_files_are_not_indexed(tmp_path: Path) -> None:
    _repo(tmp_path, 2)
    (tmp_path / ".gitignore").write_text("pkg/m1.py\n*.png\n")
    events, _ = _run(tmp_path, {}, 1)
    assert {e.path for e in events} == {".gitignore", "README.md", "pkg/__init__.py", "pkg/m0.py"}
