"""Language facts resolution needs: kinds that count, built-in members, and how names are written.

Why a module of its own: these are tables and string rules, apart from the resolution algorithm in
``resolve.py``, and each language's quirks (``::`` paths, ``./`` specifiers, ``src/`` layouts) live here.
"""

from __future__ import annotations

import io
import re

__all__ = [
    "CALLABLE",
    "CLASSLIKE",
    "FALLBACK_KINDS",
    "JS",
    "JS_EXT",
    "KINDS_FOR",
    "MAX_DEPTH",
    "SELF_WORDS",
    "builtin_member",
    "last_segment",
    "layout_alias",
    "module_key",
    "normalise",
]

CLASSLIKE = frozenset({"class", "interface", "struct", "enum", "trait", "type"})
CALLABLE = frozenset({"function", "method", "class", "struct"})
KINDS_FOR = {"calls": CALLABLE, "inherits": CLASSLIKE, "references": None}
# what ``receiver.name`` can be when the receiver's type is unknown: a method, or a nested class
FALLBACK_KINDS = {"calls": frozenset({"method"}), "inherits": CLASSLIKE, "references": frozenset({"method"})}
SELF_WORDS = frozenset({"self", "this", "cls", "Self"})
JS = frozenset({"javascript", "typescript", "tsx", "jsx"})
JS_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js", "/index.jsx")
_PY_BUILTIN_MEMBERS = frozenset(
    name
    for kind in (
        dict,
        list,
        str,
        set,
        frozenset,
        bytes,
        tuple,
        int,
        float,
        object,
        io.TextIOWrapper,
        io.BufferedReader,
    )
    for name in dir(kind)
)
_JS_BUILTIN_MEMBERS = frozenset(
    [
        "push",
        "pop",
        "shift",
        "unshift",
        "slice",
        "splice",
        "concat",
        "join",
        "split",
        "map",
        "filter",
        "reduce",
        "forEach",
        "find",
        "findIndex",
        "some",
        "every",
        "includes",
        "indexOf",
        "keys",
        "values",
        "entries",
        "has",
        "get",
        "set",
        "delete",
        "clear",
        "then",
        "catch",
        "finally",
        "toString",
        "valueOf",
        "replace",
        "trim",
        "startsWith",
        "endsWith",
        "match",
        "test",
        "apply",
        "call",
        "bind",
        "assign",
        "freeze",
    ]
)
_BUILTIN_MEMBERS = {"python": _PY_BUILTIN_MEMBERS, "javascript": _JS_BUILTIN_MEMBERS}
_BUILTIN_MEMBERS.update({lang: _JS_BUILTIN_MEMBERS for lang in ("typescript", "tsx", "jsx")})
_GENERIC = re.compile(r"<[^<>]*>")
MAX_DEPTH = 5


def builtin_member(name: str, language: str) -> bool:
    return name in _BUILTIN_MEMBERS.get(language, ())


def normalise(target: str) -> str:
    t = _GENERIC.sub("", target.strip()).replace("::", ".").replace("->", ".").replace("?.", ".")
    t = t.removeprefix("new ").lstrip("*&").replace("()", "")
    return t.strip(".")


def module_key(spec: str) -> str:
    last = spec.replace("::", ".").replace("/", ".").rstrip(".").rsplit(".", 1)[-1]
    return "mod:" + last


def layout_alias(module: str) -> str:
    for layout in ("src.", "lib."):
        if module.startswith(layout) and len(module) > len(layout):
            return module[len(layout) :]
    return ""


def last_segment(spec: str, language: str) -> str:
    if language == "python":
        return spec.split(".", 1)[0]
    return spec.replace("::", ".").replace("/", ".").rstrip(".").rsplit(".", 1)[-1]
