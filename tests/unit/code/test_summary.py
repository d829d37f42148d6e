"""The summary the CLI prints says what was parsed, skipped, deleted, and kept as file nodes only."""

from __future__ import annotations

from codememory.code import IndexSummary, extract_file
from codememory.events import FileDeleted


def test_summary_counts_and_describes() -> None:
    summary = IndexSummary(files_seen=4, skipped_unchanged=1, seconds=2.0)
    summary.add(extract_file("r", "a.py", b"def f():\n    g()\n"))
    summary.add(extract_file("r", "notes.md", b"# notes\n"))
    summary.add(extract_file("r", "b.py", b"\0binary"))
    summary.add(FileDeleted(repo="r", path="gone.py"))
    assert (summary.parsed, summary.degraded, summary.deleted) == (1, 2, 1)
    assert (summary.symbols, summary.refs) == (2, 1)
    assert summary.degraded_by_language == {"other": 1, "python": 1}
    text = summary.describe()
    assert "4 files in 2.00s (2 files/s): 1 parsed, 1 unchanged (skipped), 1 deleted" in text
    assert "parsed: python 1; 2 symbols, 0 imports, 1 references" in text
    assert "2 files kept as file nodes only" in text
    progress = summary.progress(done=True)
    assert (progress.files_seen, progress.parsed, progress.degraded, progress.done) == (4, 1, 2, True)
