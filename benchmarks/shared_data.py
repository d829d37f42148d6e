"""Where the benchmarks' data lives: the same place the tests find it.

``tests/shared_data.py`` is the one module that knows the layout (``$CODEMEMORY_SHARED``, ``../shared``
beside the checkout, or beside the checkout a clone was made from); the benchmarks run as scripts from
this folder, so this module loads that one by its path and hands on its names.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "codememory_tests_shared_data", Path(__file__).resolve().parents[1] / "tests" / "shared_data.py"
)
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

REPO: Path = _module.REPO
SHARED: Path = _module.SHARED
SHARED_DATA: Path = _module.SHARED_DATA
HOOKS_DATA: Path = _module.HOOKS_DATA
