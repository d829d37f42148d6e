"""The review tests' repository lives in reviewrepo.py (a unique module name, importable from the tests);
the gateway tests' code stack (codestack.py) serves ReviewDiff over gRPC."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "gateway"))  # codestack, wordhash

from reviewrepo import ShopRepo, shop_repo

__all__ = ["ShopRepo", "shop_repo"]
