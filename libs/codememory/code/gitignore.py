"""A ``.gitignore`` matcher for trees that are not git work trees.

Why it exists: ``codememory index`` must list the same files outside git (an unpacked sdist, a copied
tree) as ``git ls-files --exclude-standard`` would inside it, so vendored and generated directories do
not flood the graph. It implements gitignore(5): nested files (deeper files win), the last matching
rule wins, ``!`` negation, ``dir/`` (directories only), anchoring by a leading or middle ``/``, ``*``,
``?``, ``[...]`` and ``**``. As in git, a file under an ignored directory cannot be re-included (the
walker never descends into it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Rule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The rules of one ``.gitignore``; ``base`` is its directory, repo-relative (``""`` at the root)."""

    base: str
    rules: tuple[Rule, ...]


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse_rule(line: str) -> Rule | None:
    """One line of a ``.gitignore``, or ``None`` for blanks and comments."""
    if line.endswith("\n"):
        line = line[:-1]
    line = line.removesuffix("\r")
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith("\\#") or line.startswith("\\!"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    prefix = "" if anchored or line.startswith("**/") else "(?:.*/)?"
    return Rule(re.compile(f"^{prefix}{_translate(line)}$", re.DOTALL), negated, dir_only)


def load(directory: Path, base: str) -> IgnoreFile | None:
    """The ``.gitignore`` in ``directory``, if it has one with rules."""
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None
    rules = tuple(rule for line in text.splitlines() if (rule := parse_rule(line)) is not None)
    return IgnoreFile(base, rules) if rules else None


def is_ignored(layers: list[IgnoreFile], path: str, is_dir: bool) -> bool:
    """Whether repo-relative ``path`` is ignored by ``layers`` (root first, deeper files later)."""
    ignored = False
    for layer in layers:
        if layer.base:
            if not path.startswith(layer.base + "/"):
                continue
            relative = path[len(layer.base) + 1 :]
        else:
            relative = path
        for rule in layer.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(relative):
                ignored = not rule.negated
    return ignored
