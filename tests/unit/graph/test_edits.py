import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from codememory.code import extract_file
from codememory.events import Envelope, FileDeleted, SymbolsExtracted, ToolObserved, new_envelope
from codememory.graph.edits import EditedFiles, edited_paths


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "app").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app" / "pay.py").write_text("def charge(amount):\n    return amount\n")
    return root


def _edit(root: Path, *paths: str, phase: str = "post", kind: str = "edit", ok: bool = True) -> Envelope:
    event = ToolObserved(
        session_id="s",
        agent="claude",
        cwd=str(root),
        repo="shop",
        tool="Edit",
        kind=kind,  # type: ignore[arg-type]
        phase=phase,  # type: ignore[arg-type]
        paths=paths,
        succeeded=ok,
    )
    return new_envelope(event, event_id="e", tenant="t", occurred_at=datetime(2026, 1, 1, tzinfo=UTC))


def test_only_successful_edits_and_writes_after_they_ran_count(repo: Path) -> None:
    assert edited_paths(_edit(repo, "a.py").payload) == ("a.py",)
    assert edited_paths(_edit(repo, "a.py", kind="write").payload) == ("a.py",)
    assert edited_paths(_edit(repo, "a.py", phase="pre").payload) == ()
    assert edited_paths(_edit(repo, "a.py", kind="read").payload) == ()
    assert edited_paths(_edit(repo, "a.py", ok=False).payload) == ()


def test_an_edited_file_becomes_its_symbols_once_per_content(repo: Path) -> None:
    files = EditedFiles(extract_file)
    facts = files.facts(_edit(repo, "app/pay.py"))
    assert len(facts) == 1 and isinstance(facts[0], SymbolsExtracted)
    assert facts[0].repo == "shop" and facts[0].path == "app/pay.py"
    assert "app.pay.charge" in {s.qualname for s in facts[0].symbols}
    assert files.facts(_edit(repo, str(repo / "app" / "pay.py"))) == []  # same content, absolute path
    (repo / "app" / "pay.py").write_text("def refund(amount):\n    return -amount\n")
    changed = files.facts(_edit(repo, "app/pay.py"))
    assert isinstance(changed[0], SymbolsExtracted)
    assert "app.pay.refund" in {s.qualname for s in changed[0].symbols}


def test_a_vanished_file_is_deleted_and_outside_paths_are_ignored(repo: Path, tmp_path: Path) -> None:
    files = EditedFiles(extract_file)
    (repo / "app" / "pay.py").unlink()
    facts = files.facts(_edit(repo, "app/pay.py", "../elsewhere.py", str(tmp_path / "x.py"), ".git/config"))
    assert facts == [FileDeleted(repo="shop", path="app/pay.py")]


def test_outside_a_work_tree_nothing_is_extracted(tmp_path: Path) -> None:
    (tmp_path / "loose.py").write_text("x = 1\n")
    assert EditedFiles(extract_file).facts(_edit(tmp_path, "loose.py")) == []
