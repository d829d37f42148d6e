"""``codememory review``: a change reviewed against the code graph (the gateway's ReviewDiff).

The change is ``git diff`` text: piped in (``git diff | codememory review``), the index
(``--staged``), a range of commits (``--range A..B``), or by default the work tree against HEAD. The
graph normally holds the last commit, which is the old side of a work-tree or staged diff; a range
ending at HEAD is located on its new side. A table per part on a terminal; ``--json`` prints one object
with ``changed``, ``dependents``, ``risk``, ``missing``, ``memories`` and ``history``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from codememory.cli.client import fail
from codememory.cli.codecmds import Repo, _query
from codememory.cli.render import Json, console, print_json
from codememory.v1 import code_pb2 as cpb

__all__ = ["register", "review_cmd"]

PARTS = ("changed", "dependents", "risk", "missing", "memories", "history")


def _diff(span: str, staged: bool, base: str) -> tuple[str, bool]:
    """(the diff text, whether the graph holds its new side)."""
    from codememory.githistory import GitHistoryError
    from codememory.githistory.gitproc import resolve
    from codememory.review import GitDiffError, git_diff

    try:
        if span:
            end = span.split("..", 1)[-1] or "HEAD"
            return git_diff(Path("."), span=span), resolve(Path("."), end) == resolve(Path("."), "HEAD")
        if not staged and not sys.stdin.isatty():
            piped = sys.stdin.read()
            if piped.strip():
                return piped, False
        return git_diff(Path("."), base=base, staged=staged), False
    except (GitDiffError, GitHistoryError) as exc:
        fail(str(exc))
        raise AssertionError("unreachable") from exc


def review_cmd(
    span: Annotated[str, typer.Option("--range", help="Review the commits A..B (git's range).")] = "",
    staged: Annotated[bool, typer.Option("--staged", help="Review the staged changes.")] = False,
    base: Annotated[str, typer.Option(help="Diff the work tree (or index) against this ref.")] = "HEAD",
    depth: Annotated[int, typer.Option(help="Dependents within this many edges.")] = 3,
    limit: Annotated[int, typer.Option(help="At most this many missing changes.")] = 20,
    repo: Repo = "",
    json_out: Json = False,
) -> None:
    """Review a change: changed symbols, dependents, risk, likely-missing changes, memories, history."""
    from codememory.cli.codecmds import _repo

    text, new_side = _diff(span, staged, base)
    request = cpb.ReviewDiffRequest(
        repo=_repo(repo), diff=text, depth=depth, max_missing=limit, new_side=new_side
    )
    response = _query("ReviewDiff", request)
    if json_out:
        print_json({part: response.get(part, [] if part != "risk" else {}) for part in PARTS})
        return
    show(response)


def show(review: dict[str, Any]) -> None:
    """The review as a few tables, the parts that have something to say."""
    files = review.get("files", [])
    if not files:
        console.print("The diff is empty: nothing to review.")
        return
    risk = review.get("risk", {})
    console.print(
        f"Review of {len(files)} file(s) in {review.get('repo', '')}: risk {risk.get('level', '?')} "
        f"({float(risk.get('score', 0)):.2f})"
    )
    unknown = [f"{f['path']} ({f['status']})" for f in files if not f.get("indexed")]
    if unknown:
        console.print("not in the graph: " + ", ".join(unknown))
    _table(
        "changed symbols",
        ("symbol", "where", "signature changed"),
        [
            (
                s["qualname"],
                f"{s['path']}:{s['start_line']}-{s['end_line']}",
                "yes" if s["signature_changed"] else "",
            )
            for s in review.get("changed", [])
        ],
    )
    _table(
        "dependents",
        ("distance", "dependent", "edge", "on"),
        [(str(d["distance"]), d["name"], d["edge"], d["via"]) for d in review.get("dependents", [])[:30]],
    )
    _table(
        "risk",
        ("part", "value", "detail"),
        [(p["name"], f"{float(p['value']):.2f}", p["detail"]) for p in risk.get("parts", [])],
    )
    _table(
        "likely missing",
        ("score", "path", "symbol", "reason"),
        [
            (f"{float(m['score']):.2f}", m["path"], m.get("symbol", ""), m["reason"])
            for m in review.get("missing", [])
        ],
    )
    _table(
        "memories about this code",
        ("memory", "suspect", "about"),
        [
            (
                " ".join(m["text"].split())[:100],
                m.get("suspect_reason", "") if m.get("suspect") else "",
                ", ".join(m.get("about", [])[:3]),
            )
            for m in review.get("memories", [])
        ],
    )
    _table(
        "commits that explain it",
        ("sha", "subject", "why listed"),
        [(h["sha"][:10], h["subject"][:80], h["reason"]) for h in review.get("history", [])],
    )


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    if not rows:
        return
    table = Table(*columns, title=title, title_justify="left", show_lines=False)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("review")(review_cmd)
