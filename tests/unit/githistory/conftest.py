"""Fixtures for githistory tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from githistory_support import Repo  # type: ignore[import-not-found]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "work"
    root.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    return Repo(root, home)
