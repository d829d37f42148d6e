"""Language facts resolution needs: kinds that count, built-in members, and how names are written.

Why a module of its own: these are tables and string rules, apart from the resolution algorithm in
``resolve.py``, and each language's quirks (``::`` paths, ``./`` specifiers, ``src/`` layouts) live here.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.subprocess
import collections
import concurrent.futures
import datetime
import hashlib
import io
import logging
import pathlib
import queue
import re
import socket
import sqlite3
import subprocess
import threading

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
# Python values whose type a reader of ``x.name()`` usually cannot see, grouped by where they come from.
_PY_VALUE_TYPES: dict[str, tuple[type, ...]] = {
    "builtins": (dict, list, str, set, frozenset, bytes, bytearray, tuple, int, float, object),
    "files": (io.TextIOWrapper, io.BufferedReader, io.BufferedWriter, io.BytesIO, io.StringIO),
    "collections": (collections.deque, collections.Counter, collections.OrderedDict, collections.defaultdict),
    "asyncio": (
        asyncio.Future,
        asyncio.Task,
        asyncio.Event,
        asyncio.Lock,
        asyncio.Condition,
        asyncio.Semaphore,
        asyncio.Queue,
        asyncio.AbstractEventLoop,
        asyncio.StreamReader,
        asyncio.StreamWriter,
        asyncio.subprocess.Process,
    ),
    "threading": (
        threading.Thread,
        type(threading.Lock()),
        type(threading.RLock()),
        threading.Event,
        threading.Condition,
        threading.Semaphore,
        queue.Queue,
        concurrent.futures.Future,
        concurrent.futures.Executor,
    ),
    "processes": (subprocess.Popen, subprocess.CompletedProcess),
    "paths": (pathlib.Path,),
    "logging": (logging.Logger, logging.Handler),
    "text and time": (re.Pattern, re.Match, datetime.datetime, datetime.timedelta),
    "sockets and databases": (socket.socket, sqlite3.Connection, sqlite3.Cursor),
    "tools": (argparse.ArgumentParser, type(hashlib.sha256())),
}


def _python_value_members() -> frozenset[str]:
    """The method names of the standard-library values in ``_PY_VALUE_TYPES``.

    Why: the last-resort rule of ``resolve.py`` takes ``x.done()`` to the repository's only method
    named ``done``. When ``x`` is untyped it is far more often a standard-library value (an asyncio
    Task, a subprocess, a Path, a Logger) than an instance of that one class, and a wrong edge is worse
    than none (``task.done()`` became a call of a rebuild's ``_BuiltApart.done``). Names are read with
    ``dir()`` so each type's members stay exact as Python changes. Kept: methods (and dunders). Left
    out: data attributes (``datetime.fold``, ``Path.parent``: nobody calls them, while a repository's
    ``fold()`` is called), private names (``_``), and capitalised ones (``sqlite3.Connection.Error``,
    classes that ``inherits`` may rightly reach). The cost: a repository method sharing such a name
    (``close``, ``open``, ``resolve``) is no longer reached through an untyped receiver;
    ``benchmarks/bench_edges.py`` measures that as recall.
    """
    return frozenset(
        name
        for kinds in _PY_VALUE_TYPES.values()
        for kind in kinds
        for name in dir(kind)
        if (not name.startswith("_") or name.startswith("__"))
        and not name[0].isupper()
        and callable(getattr(kind, name, None))
    )


_PY_BUILTIN_MEMBERS = _python_value_members()
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
