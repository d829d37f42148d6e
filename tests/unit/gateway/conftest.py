"""The code-service fixtures live in codestack.py: a unique module name, importable from the tests."""

from codestack import code_stack, shop

__all__ = ["code_stack", "shop"]
