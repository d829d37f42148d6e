"""The gateway tests' shared fixtures live in modules of unique names (codestack.py),
importable from the tests; they are registered here."""

from codestack import code_stack, shop

__all__ = ["code_stack", "shop"]
