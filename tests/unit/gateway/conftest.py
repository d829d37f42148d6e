"""The gateway tests' shared fixtures live in modules of unique names (codestack.py, corestack.py),
importable from the tests; they are registered here."""

from codestack import code_stack, shop
from corestack import core

__all__ = ["code_stack", "core", "shop"]
