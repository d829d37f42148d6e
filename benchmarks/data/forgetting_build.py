"""Builds the labelled forgetting set (forgetting_sequences.jsonl) from real code.

Why a builder and not hand-written cases: the set needs many real functions of real repositories in two
languages, and each sequence must be consistent (the undoing edit's old text is what the instructed edit
left). Each sequence takes one real function and plays a session of four turns over its file:

1. an unrelated edit to another function of the file (a comment added above its first line);
2. the instructed change, with the user's prompt (rename the function, add a parameter, remove a check,
   add a guard, change a literal);
3. another unrelated edit;
4. the final edit, labelled ``undo`` (it renames back or uses the old name, drops the parameter, puts
   the check back, removes the guard, changes the literal back) or ``continue`` (it refines or continues
   the change: a new default, another parameter, a longer guard message, the guard moved into a helper,
   an unrelated line, a third value; or it reverts *because the prompt of its turn asks to*).

Sources: ``dev`` (tuned on) is this repository's ``libs/`` (Python) and npm's own ``lib/`` (JavaScript);
``heldout`` (never tuned on) is pallets/click and opentelemetry-python from /work/.mirror (Python) and the
packages under npm's ``node_modules`` (JavaScript). Seeded: the same sources give the same set.

Usage: .venv/bin/python benchmarks/data/forgetting_build.py
"""

from __future__ import annotations

import ast
import json
import random
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tree_sitter_language_pack import get_parser

REPO = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("forgetting_sequences.jsonl")
MIRRORS = Path("/work/.mirror")
NPM = Path("/usr/lib/node_modules/npm")
SEED = 15


@dataclass
class Func:
    source: str  # repo:path
    path: str
    language: str
    name: str
    lines: list[str]  # the function's lines, original indentation
    body: int  # index of the first body line (after a docstring)
    others: list[list[str]]  # other functions of the same file (for unrelated edits)


def _python_funcs(source: str, path: str, text: str) -> list[Func]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.split("\n")
    found: list[tuple[str, list[str], int, list[ast.arg]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.end_lineno is None or node.decorator_list:
            continue
        size = node.end_lineno - node.lineno + 1
        body = (
            node.body[1:]
            if isinstance(node.body[0], ast.Expr)
            and isinstance(getattr(node.body[0], "value", None), ast.Constant)
            else node.body
        )
        if not 5 <= size <= 40 or not body:
            continue
        args = [a for a in node.args.args if a.arg not in ("self", "cls")]
        found.append(
            (node.name, lines[node.lineno - 1 : node.end_lineno], body[0].lineno - node.lineno, args)
        )
    return [
        Func(source, path, "python", name, fl, body, [o[1] for o in found if o[0] != name][:3])
        for name, fl, body, args in found
        if args and len(found) >= 2 and "(" in fl[0] and fl[0].rstrip().endswith(":")
    ]


_JS = get_parser("javascript")


def _js_funcs(source: str, path: str, text: str) -> list[Func]:
    tree = _JS.parse(text.encode())
    lines = text.split("\n")
    found: list[tuple[str, list[str]]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type not in ("function_declaration", "method_definition"):
            continue
        name = node.child_by_field_name("name")
        params = node.child_by_field_name("parameters")
        if name is None or params is None or params.named_child_count == 0:
            continue
        start, end = node.start_point[0], node.end_point[0]
        fl = lines[start : end + 1]
        named = (name.text or b"").decode()
        if not named.isidentifier():
            continue  # a computed name ([kDispatch], #private): renaming it is not plain text
        if 5 <= len(fl) <= 40 and fl[0].rstrip().endswith("{") and params.start_point[0] == start:
            found.append(((name.text or b"").decode(), fl))
    return [
        Func(source, path, "javascript", n, fl, 1, [o[1] for o in found if o[0] != n][:3])
        for n, fl in found
        if len(found) >= 2
    ]


def _git_files(repo: Path, suffix: str) -> Iterator[tuple[str, str]]:
    names = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True, text=True
    ).stdout.split()
    for name in sorted(n for n in names if n.endswith(suffix) and "test" not in n):
        blob = subprocess.run(
            ["git", "-C", str(repo), "show", f"HEAD:{name}"], capture_output=True, text=True
        )
        if blob.returncode == 0:
            yield name, blob.stdout


def _disk_files(root: Path, pattern: str, exclude: str = "") -> Iterator[tuple[str, str]]:
    for file in sorted(root.glob(pattern)):
        rel = str(file.relative_to(root))
        if (exclude and exclude in rel) or "test" in rel or file.stat().st_size > 60_000:
            continue
        yield rel, file.read_text(errors="replace")


def _funcs(label: str, files: Iterator[tuple[str, str]], language: str) -> list[Func]:
    out: list[Func] = []
    for path, text in files:
        make = _python_funcs if language == "python" else _js_funcs
        out.extend(make(label, path, text))
    return out


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


_SYNONYMS = {"get": "fetch", "make": "build", "parse": "read", "load": "read", "create": "make", "is": "has"}


def _new_name(name: str) -> str:
    head, sep, tail = name.lstrip("_").partition("_")
    prefix = name[: len(name) - len(name.lstrip("_"))]
    if head in _SYNONYMS and sep:
        return prefix + _SYNONYMS[head] + sep + tail
    if re.match(r"[a-z]+[A-Z]", name):  # camelCase
        first = re.match(r"[a-z]+", name)
        assert first is not None
        word = first.group(0)
        return (
            _SYNONYMS.get(word, word + "Checked") + name[len(word) :] if word in _SYNONYMS else name + "Safe"
        )
    return name + "_checked"


def _sig_close(line: str) -> int:
    """Index of the ``)`` closing the first parameter list of a one-line signature, or -1."""
    depth, start = 0, line.find("(")
    for i in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return i
    return -1


def _e(f: Func, old: list[str] | str, new: list[str] | str) -> dict[str, str]:
    join = lambda x: x if isinstance(x, str) else "\n".join(x)  # noqa: E731
    return {"path": f.path, "old": join(old), "new": join(new)}


def _comment(f: Func, lines: list[str], text: str) -> dict[str, str]:
    mark = "#" if f.language == "python" else "//"
    return _e(f, lines[0], [f"{_indent(lines[0])}{mark} {text}", lines[0]])


def _body_line(f: Func) -> str:
    return f.lines[min(f.body, len(f.lines) - 1)]


def _new_line(f: Func, code_py: str, code_js: str) -> str:
    indent = _indent(_body_line(f)) or "    "
    return indent + (code_py if f.language == "python" else code_js)


def rename(
    f: Func, undo: bool, rng: random.Random
) -> tuple[str, list[dict[str, str]], dict[str, str]] | None:
    new = _new_name(f.name)
    head = f.lines[0]
    if f.name not in head or new == f.name:
        return None
    renamed = head.replace(f.name, new, 1)
    prompt = f"Rename `{f.name}` to `{new}` everywhere; the old name is misleading."
    if undo:
        if rng.random() < 0.5 or not f.others:
            return prompt, [_e(f, head, renamed)], _e(f, renamed, head)
        other = f.others[0]
        call = f"{_indent(other[1]) or '    '}{f.name}()"
        return (
            prompt,
            [_e(f, head, renamed)],
            _e(f, other[1], [other[1], call.rstrip() + (";" if f.language != "python" else "")]),
        )
    choice = rng.random()
    if choice < 0.5:
        line = _new_line(f, "log.debug('called')", "log.debug('called');")
        return prompt, [_e(f, head, renamed)], _e(f, _body_line(f), [line, _body_line(f)])
    close = _sig_close(renamed)
    if close < 0:
        return None
    extra = ", strict=False" if f.language == "python" else ", strict = false"
    return prompt, [_e(f, head, renamed)], _e(f, renamed, renamed[:close] + extra + renamed[close:])


def add_param(
    f: Func, undo: bool, rng: random.Random
) -> tuple[str, list[dict[str, str]], dict[str, str]] | None:
    head = f.lines[0]
    close = _sig_close(head)
    if close < 0 or "timeout" in head:
        return None
    py = f.language == "python"
    param = "timeout=30" if py else "timeout = 30"
    with_param = head[:close] + f", {param}" + head[close:]
    prompt = f"Add a `timeout` parameter to `{f.name}` (30 seconds by default)."
    instructed = [_e(f, head, with_param)]
    if undo:
        if rng.random() < 0.5:
            return prompt, instructed, _e(f, with_param, head)
        extra = ", retries=3" if py else ", retries = 3"
        return prompt, instructed, _e(f, with_param, head[:close] + extra + head[close:])
    choice = rng.random()
    if choice < 0.4:
        refined = with_param.replace(param, "timeout: float = 30.0" if py else "timeout = 30.0")
        return prompt, instructed, _e(f, with_param, refined)
    if choice < 0.7:
        extra = ", retries=3" if py else ", retries = 3"
        return prompt, instructed, _e(f, with_param, with_param.replace(param, param + extra))
    return prompt, instructed, _e(f, with_param, with_param.replace("30", "60"))


_CHECK_PY = re.compile(r"^\s*if .+:\s*$")
_CHECK_JS = re.compile(r"^\s*if \(.+\) \{?\s*$")


def _check(f: Func) -> tuple[int, int] | None:
    """A one-branch ``if`` whose body is a raise/return/throw: its first and last line indexes."""
    pattern = _CHECK_PY if f.language == "python" else _CHECK_JS
    for i in range(f.body, len(f.lines) - 2):
        line = f.lines[i]
        if pattern.match(line) and " else" not in line:
            nxt = f.lines[i + 1].strip()
            if nxt.startswith(("raise ", "return", "throw ")):
                end = i + 1
                if f.language != "python":
                    if f.lines[i + 2].strip() != "}":
                        continue
                    end = i + 2
                if end + 1 < len(f.lines) and f.lines[end + 1].strip() and "else" not in f.lines[end + 1]:
                    return i, end
    return None


def remove_check(
    f: Func, undo: bool, rng: random.Random
) -> tuple[str, list[dict[str, str]], dict[str, str]] | None:
    span = _check(f)
    if span is None:
        return None
    start, end = span
    block, after = f.lines[start : end + 1], f.lines[end + 1]
    condition = block[0].strip().removeprefix("if").strip(" :{()")
    prompt = f"Remove the `{condition}` check from `{f.name}`; callers validate that now."
    instructed = [_e(f, [*block, after], after)]
    if undo:
        if rng.random() < 0.5:
            return prompt, instructed, _e(f, after, [*block, after])
        return (
            prompt,
            instructed,
            _e(f, after, [*block, _new_line(f, "pass  # validated", "// validated"), after]),
        )
    if rng.random() < 0.5:
        return (
            prompt,
            instructed,
            _e(
                f,
                after,
                [_new_line(f, "log.debug('checked by caller')", "log.debug('checked by caller');"), after],
            ),
        )
    last = f.lines[-1] if f.language == "python" else f.lines[-2]
    return prompt, instructed, _e(f, last, [last, _new_line(f, "# callers validate", "// callers validate")])


def add_guard(
    f: Func, undo: bool, rng: random.Random
) -> tuple[str, list[dict[str, str]], dict[str, str]] | None:
    params = f.lines[0][f.lines[0].find("(") + 1 : _sig_close(f.lines[0])]
    names = [p.split("=")[0].split(":")[0].strip(" *") for p in params.split(",")]
    names = [n for n in names if n.isidentifier() and n not in ("self", "cls")]
    if not names:
        return None
    p, first = names[0], _body_line(f)
    ind = _indent(first) or "    "
    py = f.language == "python"
    guard = (
        [f"{ind}if {p} is None:", f"{ind}    raise ValueError('{p} is required')"]
        if py
        else [f"{ind}if ({p} == null) {{", f"{ind}  throw new TypeError('{p} is required')", f"{ind}}}"]
    )
    prompt = f"`{f.name}` must fail fast when `{p}` is missing: raise an error instead of carrying on."
    instructed = [_e(f, first, [*guard, first])]
    if undo:
        if rng.random() < 0.6:
            return prompt, instructed, _e(f, [*guard, first], first)
        return (
            prompt,
            instructed,
            _e(f, [*guard, first], [f"{ind}{p} = {p} or {{}}" + ("" if py else ";"), first]),
        )
    choice = rng.random()
    if choice < 0.2:
        longer = [g.replace("is required", f"is required by {f.name}") for g in guard]
        return prompt, instructed, _e(f, [*guard, first], [*longer, first])
    if choice < 0.35:  # the condition refined: a falsy value is missing too
        looser = [guard[0].replace(f"{p} is None", f"not {p}").replace(f"{p} == null", f"!{p}"), *guard[1:]]
        return prompt, instructed, _e(f, [*guard, first], [*looser, first])
    if choice < 0.7:
        helper = f"_require_{p}" if py else f"require{p[:1].upper()}{p[1:]}"
        call = f"{ind}{helper}({p})" + ("" if py else ";")
        helper_def = (
            [f"def {helper}({p}):", f"    if {p} is None:", f"        raise ValueError('{p} is required')"]
            if py
            else [
                f"function {helper} ({p}) {{",
                f"  if ({p} == null) {{",
                f"    throw new TypeError('{p} is required')",
                "  }",
                "}",
            ]
        )
        top = f.others[0][0] if f.others else f.lines[0]
        since = _e(f, top, [*helper_def, "", top])
        return prompt, instructed, {**_e(f, [*guard, first], [call, first]), "since": [since]}  # type: ignore[dict-item]
    second = [
        g.replace(f" {p} ", " options ").replace(f"({p} ", "(options ").replace(f"'{p} ", "'options ")
        for g in guard
    ]
    return prompt, instructed, _e(f, [*guard, first], [*guard, *second, first])


_NUMBER = re.compile(r"(?<![\w.])([2-9]|[1-9]\d{1,4})(?![\w.])")


def change_value(
    f: Func, undo: bool, rng: random.Random
) -> tuple[str, list[dict[str, str]], dict[str, str]] | None:
    for i in range(f.body, len(f.lines)):
        line = f.lines[i]
        match = _NUMBER.search(line)
        if (
            match
            and not line.strip().startswith(("#", "//", "return"))
            and '"' not in line
            and "'" not in line
        ):
            old_v = match.group(1)
            new_v = str(int(old_v) * 2)
            changed = line[: match.start()] + new_v + line[match.end() :]
            prompt = f"In `{f.name}`, use {new_v} instead of {old_v}."
            instructed = [_e(f, line, changed)]
            if undo:
                return prompt, instructed, _e(f, changed, line)
            choice = rng.random()
            if choice < 0.35:
                third = line[: match.start()] + str(int(old_v) * 3) + line[match.end() :]
                return prompt, instructed, _e(f, changed, third)
            last = next((x for x in reversed(f.lines[i + 1 : -1]) if len(x.split()) > 2), "")
            if choice < 0.7 and last and f.lines.index(last) > i + 1:  # an untouched line removed
                before = f.lines[f.lines.index(last) - 1]
                return prompt, instructed, _e(f, [before, last], before)
            return (
                prompt,
                instructed,
                _e(
                    f,
                    changed,
                    [changed, _new_line(f, "log.debug('limit raised')", "log.debug('limit raised');")],
                ),
            )
    return None


SCENARIOS = {
    "rename": rename,
    "add_param": add_param,
    "remove_check": remove_check,
    "add_guard": add_guard,
    "change_value": change_value,
}
_FOLLOW_UPS = [
    "Now add logging so we can see when this runs.",
    "The tests fail on CI, please fix them.",
    "Tidy up this file a bit.",
    "Also handle the empty case.",
]
_REVERTS = ["Revert that change, it broke the build.", "Please undo the last change to this function."]


def sequences(funcs: list[Func], split: str, count: int, rng: random.Random) -> list[dict[str, object]]:
    """``count`` sequences, kinds in rotation, undo and continue alternating, one function each."""
    out: list[dict[str, object]] = []
    rng.shuffle(funcs)
    kinds = list(SCENARIOS)
    used: set[str] = set()
    misses = 0
    while len(out) < count and misses < len(kinds):
        undo = len(out) % 2 == 0
        kind = kinds[(len(out) // 2 + misses) % len(kinds)]
        made = None
        for f in funcs:
            key = f"{f.source}:{f.path}:{f.name}"
            if key in used or not f.others:
                continue
            made = SCENARIOS[kind](f, undo, rng)
            if made is not None:
                used.add(key)
                break
        if made is None:
            misses += 1
            continue
        misses = 0
        prompt, instructed, final = made
        since = final.pop("since", [])  # type: ignore[misc]
        final_prompt = rng.choice(_FOLLOW_UPS)
        if not undo and rng.random() < 0.15:  # a revert the user asks for stays silent
            final = instructed[0] | {"old": instructed[0]["new"], "new": instructed[0]["old"]}
            final_prompt = rng.choice(_REVERTS)
        turns = [
            {
                "prompt": "Add a short comment explaining this helper.",
                "edits": [_comment(f, f.others[0], "helper")],
            },
            {"prompt": prompt, "edits": instructed},
            {"prompt": "Run the tests and fix what fails.", "edits": [_comment(f, f.others[-1], "checked")]},
        ]
        out.append(
            {
                "id": f"{split}-{f.source.split('/')[-1]}-{len(out):03d}",
                "split": split,
                "language": f.language,
                "source": f"{f.source}:{f.path}:{f.name}",
                "kind": kind,
                "label": "undo" if undo else "continue",
                "turns": turns,
                "final": {"prompt": final_prompt, "since": since, "edit": final},
            }
        )
    return out


def build() -> list[dict[str, object]]:
    rng = random.Random(SEED)
    libs = _disk_files(REPO / "libs", "codememory/**/*.py", exclude="v1/")
    dev_py = _funcs("codememory", libs, "python")
    dev_js = _funcs("npm", _disk_files(NPM, "lib/**/*.js"), "javascript")
    click = _funcs("pallets/click", _git_files(MIRRORS / "pallets+click" / "repo", ".py"), "python")
    otel = _funcs(
        "opentelemetry-python",
        _git_files(MIRRORS / "open-telemetry+opentelemetry-python" / "repo", ".py"),
        "python",
    )
    held_js = _funcs("npm/node_modules", _disk_files(NPM, "node_modules/*/lib/**/*.js"), "javascript")
    return [
        *sequences(dev_py, "dev", 50, rng),
        *sequences(dev_js, "dev", 30, rng),
        *sequences(click, "heldout", 25, rng),
        *sequences(otel, "heldout", 25, rng),
        *sequences(held_js, "heldout", 30, rng),
    ]


def main() -> None:
    rows = build()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    by = {(r["split"], r["language"], r["label"]) for r in rows}
    print(f"{len(rows)} sequences -> {OUT}; groups: {sorted(by)}")


if __name__ == "__main__":
    main()
